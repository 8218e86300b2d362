"""`python -m gpufl ...` runs the gpufl command line tool, like the `gpufl` console script."""
from ._cli import main

raise SystemExit(main())
