"""The analyzer on logs a hostile or unlucky user leaves: it must never hang (issue 13)."""
import os
import subprocess
import sys
import textwrap


def test_a_fifo_in_place_of_a_channel_file_does_not_hang(tmp_path):
    prefix = tmp_path / "run"
    os.mkfifo(f"{prefix}.device.log")  # nobody ever writes to it: a blocking open would wait forever
    code = textwrap.dedent(f"""
        from gpufl.analyzer import GpuFlightSession
        try:
            GpuFlightSession({str(tmp_path)!r}, log_prefix="run")
        except Exception as e:  # a clear error is fine; only a hang is not
            print("error:", e)
        print("returned")
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "returned" in p.stdout, p.stdout + p.stderr
