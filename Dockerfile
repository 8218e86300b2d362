# GPU Flight in a container: gpufl and the bundled CUDA examples built on NVIDIA's CUDA 13 development image.
#
#   docker build -t gpufl .
#   docker run --rm --gpus all gpufl                        # gpufl doctor, then the coalescing example and its report
#   docker run --rm --gpus all --cap-add SYS_ADMIN gpufl    # where the host's driver keeps counters for admins
#   docker run --rm --gpus all -v "$PWD:/work" -w /work gpufl gpufl trace -- ./your_program
#
# The deep engines need the GPU's performance counters: the host's driver decides
# (NVreg_RestrictProfilingToAdminUsers), and a restricted host needs --cap-add SYS_ADMIN (README: Containers).
FROM nvidia/cuda:13.0.1-devel-ubuntu24.04
ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /opt/gpufl
COPY . .
# What building and running need (no test tools), then a Release build of the library, the CLI and the examples for
# the GPUs CUDA 13 supports, installed into /usr/local (gpufl on PATH).
RUN scripts/install-deps.sh \
 && cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUFL_BUILD_TESTS=OFF \
      -DGPUFL_BUILD_EXAMPLES=ON -DGPUFL_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="75;80;86;89;90;100;120" \
 && cmake --build build/release \
 && cmake --install build/release --prefix /usr/local \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /tmp
CMD ["sh", "-c", "gpufl doctor && /opt/gpufl/build/release/examples/cuda/memory_coalescing_demo"]
