#!/bin/bash
# The GPU checks on a lent GPU machine (the workplace's device tool), from the repository root:
# installs the wheels carried in .whl/ (xdsl and passviz's other pure-Python needs, pycuda built
# for Python 3.12 if it was built here, else pycuda's sdist in .whl/src is built there against the
# machine's CUDA), then runs tests/gpu, tests/test_run.py and benchmarks/run_panel.py.
# Logs go to $OUT (the device tool brings them back), else to /tmp/device-check. DRY=1 leaves
# pycuda out (a dry run where there is no GPU: the GPU tests skip).
set -u
OUT=${OUT:-/tmp/device-check}
mkdir -p "$OUT"
SITE=/tmp/site
exec > >(tee "$OUT/device_check.log") 2>&1
start=$(date +%s)
stamp() { echo "== $(( $(date +%s) - start )) s: $*"; }

stamp "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv
python3 --version
python3 -c "import triton, numpy; print('triton', triton.__version__, 'numpy', numpy.__version__)"

stamp "install the carried wheels"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl || exit 1
rm -rf "$SITE/tests" "$SITE/benchmarks" "$SITE/docs"  # xdsl's wheel carries folders of these names
export PYTHONPATH="$PWD:$SITE" PYTHONUNBUFFERED=1

if [ -z "${DRY:-}" ] && ! python3 -c "import pycuda.driver as d; d.init(); print('pycuda', d.get_version(), d.get_driver_version())"; then
  stamp "build pycuda from its sdist"
  nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | head -1)
  root=$(dirname "$(dirname "$nvcc")")
  echo "CUDA_ROOT=$root"
  libcuda=$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')
  mkdir -p /tmp/cudalib && ln -sf "$libcuda" /tmp/cudalib/libcuda.so
  rm -rf /tmp/pycuda-src && mkdir /tmp/pycuda-src && tar xzf .whl/src/pycuda-*.tar.gz -C /tmp/pycuda-src
  # Without curand (not every toolkit has its headers); build_ext -j compiles on every core first.
  (cd /tmp/pycuda-src/pycuda-* && python3 configure.py --cuda-root="$root" > /dev/null \
    && sed -i 's/^CUDA_ENABLE_CURAND = True/CUDA_ENABLE_CURAND = False/' siteconf.py \
    && export LIBRARY_PATH=/tmp/cudalib PATH="$root/bin:$PATH" \
    && python3 setup.py -q build_ext -j "$(nproc)" > /tmp/pycuda-build.log 2>&1 \
    && python3 -m pip install -q --no-build-isolation --no-index --no-deps --no-compile --target "$SITE" .) \
    || { tail -20 /tmp/pycuda-build.log; exit 1; }
  python3 -c "import pycuda.driver as d; d.init(); print('pycuda', d.get_version())" || exit 1
fi

stamp "tests/gpu and tests/test_run.py"
python3 -m pytest -q -p no:cacheprovider -rs tests/gpu tests/test_run.py -x 2>&1 | tee "$OUT/tests.log"

stamp "passviz run --gpu"
python3 - <<'EOF' 2>&1 | tee "$OUT/cli.log"
import tempfile
from passviz.cli import main
from passviz.trace.store import write_trace
from tests.gpu_cases import make_ttir_trace
path = tempfile.mktemp(suffix=".passviz.json")
write_trace(make_ttir_trace("vector_add"), path)
print("exit", main(["run", path, "--gpu", "--arg", "x=65536:f32", "--arg", "y=65536:f32",
                    "--arg", "out=65536:f32:zeros", "--arg", "n=65536", "--grid", "64",
                    "--save", path + ".npz"]))
import numpy as np
print({name: array.shape for name, array in np.load(path + ".npz").items()})
EOF

stamp "benchmarks/run_panel.py"
python3 benchmarks/run_panel.py 2>&1 | tee "$OUT/run_panel.log"
stamp "done"
