// api_list.hpp: the driver entry points warplab uses, as one X-macro list.
// Each name is looked up with cuGetProcAddress for the CUDA_VERSION of the header we
// compiled against, so versioned symbols (cuMemAlloc -> _v2) resolve as cuda.h intends.
// Add an entry here, then call it as warplab::cu::api().NAME(...). Expanded by driver.hpp.
#pragma once

#define WARPLAB_CU_API(X)                                 \
  X(cuInit)                                               \
  X(cuDriverGetVersion)                                   \
  X(cuGetErrorName)                                       \
  X(cuGetErrorString)                                     \
  X(cuDeviceGetCount)                                     \
  X(cuDeviceGet)                                          \
  X(cuDeviceGetName)                                      \
  X(cuDeviceGetAttribute)                                 \
  X(cuDeviceTotalMem)                                     \
  X(cuDeviceGetUuid)                                      \
  X(cuDevicePrimaryCtxRetain)                             \
  X(cuDevicePrimaryCtxRelease)                            \
  X(cuCtxSetCurrent)                                      \
  X(cuCtxGetCurrent)                                      \
  X(cuCtxSynchronize)                                     \
  X(cuCtxGetLimit)                                        \
  X(cuCtxSetLimit)                                        \
  X(cuMemGetInfo)                                         \
  X(cuModuleLoadDataEx)                                   \
  X(cuModuleUnload)                                       \
  X(cuModuleGetFunction)                                  \
  X(cuModuleGetFunctionCount)                             \
  X(cuModuleEnumerateFunctions)                           \
  X(cuModuleGetGlobal)                                    \
  X(cuFuncGetAttribute)                                   \
  X(cuFuncSetAttribute)                                   \
  X(cuFuncGetParamInfo)                                   \
  X(cuFuncGetName)                                        \
  X(cuMemAlloc)                                           \
  X(cuMemFree)                                            \
  X(cuMemFreeHost)                                        \
  X(cuMemHostAlloc)                                       \
  X(cuMemcpyHtoD)                                         \
  X(cuMemcpyDtoH)                                         \
  X(cuMemcpyDtoD)                                         \
  X(cuMemcpyHtoDAsync)                                    \
  X(cuMemcpyDtoHAsync)                                    \
  X(cuMemsetD8)                                           \
  X(cuMemsetD8Async)                                      \
  X(cuStreamCreate)                                       \
  X(cuStreamDestroy)                                      \
  X(cuStreamSynchronize)                                  \
  X(cuStreamQuery)                                        \
  X(cuEventCreate)                                        \
  X(cuEventDestroy)                                       \
  X(cuEventRecord)                                        \
  X(cuEventSynchronize)                                   \
  X(cuEventQuery)                                         \
  X(cuEventElapsedTime)                                   \
  X(cuLaunchKernel)                                       \
  X(cuLaunchCooperativeKernel)                            \
  X(cuLaunchKernelEx)                                     \
  X(cuOccupancyMaxActiveClusters)                         \
  X(cuMemcpyDtoDAsync)                                    \
  X(cuDevicePrimaryCtxGetState)                           \
  X(cuStreamWaitEvent)                                    \
  X(cuFuncLoad)                                           \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) \
  X(cuOccupancyMaxPotentialBlockSize)
