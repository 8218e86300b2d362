#!/usr/bin/env bash
# The CUDA backend's headers without the CUDA toolkit: downloads NVIDIA's pip packages listed in
# cmake/cuda-headers.txt (about 13 MB) and unpacks only their headers into build/cuda-headers/include, where the
# CMake build finds them (cmake/GpuflCudaHeaders.cmake, step 3). Nothing is installed; run it again to refresh.
#
#   scripts/fetch-cuda-headers.sh [DEST]      DEST: default build/cuda-headers
#
# Environment: PYTHON (default python3; needs pip).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
DEST=${1:-build/cuda-headers}
if [ -f "$DEST/include/cupti.h" ] && [ -f "$DEST/include/cuda.h" ] && [ -f "$DEST/include/nvtx3/nvToolsExt.h" ] \
   && [ "$DEST/include/cupti.h" -nt cmake/cuda-headers.txt ]; then
  echo "CUDA headers already in $DEST/include"
  exit 0
fi
rm -rf "$DEST/wheels"
mkdir -p "$DEST/wheels"
"$PY" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
  -r cmake/cuda-headers.txt -d "$DEST/wheels"
"$PY" - "$DEST" <<'PYEOF'
import glob, os, shutil, sys, zipfile
dest = sys.argv[1]
inc = os.path.join(dest, "include")
shutil.rmtree(inc, ignore_errors=True)
prefix = "nvidia/cu13/include/"
count = 0
for wheel in sorted(glob.glob(os.path.join(dest, "wheels", "*.whl"))):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(prefix) and not name.endswith("/"):
                out = os.path.join(inc, name[len(prefix):])
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with z.open(name) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                count += 1
for need in ("cuda.h", "cupti.h", "generated_nvtx_meta.h", "nvtx3/nvToolsExt.h"):
    if not os.path.isfile(os.path.join(inc, need)):
        sys.exit(f"fetch-cuda-headers: {need} is in none of the downloaded wheels ({dest}/wheels)")
print(f"CUDA headers: {count} files in {inc}")
PYEOF
rm -rf "$DEST/wheels"
