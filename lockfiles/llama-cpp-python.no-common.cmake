# Included by CMake right after llama.cpp's project() call (CMAKE_PROJECT_llama.cpp_INCLUDE in
# lockfiles/llama-cpp-python.cmake-args): llama.cpp's `common` library is not built.
#
# llama-cpp-python 0.3.36 forces LLAMA_BUILD_COMMON ON in the CMake cache, for its multimodal library (mtmd),
# which LLAVA_BUILD=OFF already leaves out. Nothing the Python package loads uses `common` (ctypes opens libllama,
# libggml* and, when built, libmtmd), yet its 29 C++ files were half of the compile: without them the wheel built
# in 136 CPU seconds instead of 290 (75 s instead of 156 s on two cores; one build each way, pip wheel from the
# locked sdist). A normal variable shadows the cached one, and option() leaves an existing normal variable alone
# (policy CMP0077, NEW from CMake 3.13).
set(LLAMA_BUILD_COMMON OFF)
