// attributes.cpp: the attribute table itself, one entry per distinct CU_DEVICE_ATTRIBUTE_*
// value of cuda.h, in enum order. The symbolic enum names make the compiler check every
// value; tests/unit/attributes_test.cpp parses cuda.h and checks names and completeness.
// Lookups and value formatting live in attribute_format.cpp.
#include "cu/attributes.hpp"

#include <algorithm>
#include <vector>

#include "sys/text.hpp"

namespace warplab::cu {
namespace {

using Aliases = std::vector<std::string_view>;

AttributeInfo a(std::string_view name, CUdevice_attribute e, std::string_view group, std::string_view unit,
                std::string_view meaning, Aliases aliases = {}) {
  return AttributeInfo{name, static_cast<int>(e), group, unit, meaning, std::move(aliases), false};
}
// An attribute that cuda.h itself marks deprecated (not an alias: it has its own value).
AttributeInfo dep(std::string_view name, CUdevice_attribute e, std::string_view group, std::string_view unit,
                  std::string_view meaning) {
  return AttributeInfo{name, static_cast<int>(e), group, unit, meaning, {}, true};
}

// Texture and surface limits are dozens of near-identical lines; they share one group and
// the unit "elements" (texels), except layer counts and byte pitches.
// One entry per line, so a grep for a name shows everything about it.
// clang-format off
const std::vector<AttributeInfo>& table() {
  static const std::vector<AttributeInfo> t = {
    a("max_threads_per_block", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "limits", "threads", "most threads one block may have (blockDim.x * y * z)"),
    a("max_block_dim_x", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "limits", "threads", "largest blockDim.x"),
    a("max_block_dim_y", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "limits", "threads", "largest blockDim.y"),
    a("max_block_dim_z", CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "limits", "threads", "largest blockDim.z"),
    a("max_grid_dim_x", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "limits", "blocks", "largest gridDim.x"),
    a("max_grid_dim_y", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "limits", "blocks", "largest gridDim.y"),
    a("max_grid_dim_z", CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "limits", "blocks", "largest gridDim.z"),
    a("max_shared_memory_per_block", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "shared-memory", "bytes", "shared memory one block may use without opting in", {"shared_memory_per_block"}),
    a("total_constant_memory", CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, "memory", "bytes", "memory for __constant__ variables"),
    a("warp_size", CU_DEVICE_ATTRIBUTE_WARP_SIZE, "sm", "threads", "threads per warp, the group that is scheduled together"),
    a("max_pitch", CU_DEVICE_ATTRIBUTE_MAX_PITCH, "memory", "bytes", "largest row pitch allowed by pitched allocations and 2-D copies"),
    a("max_registers_per_block", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "limits", "registers", "32-bit registers available to one block", {"registers_per_block"}),
    a("clock_rate", CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "clocks", "kHz", "typical SM clock frequency"),
    a("texture_alignment", CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, "texture", "bytes", "alignment required of texture base addresses"),
    dep("gpu_overlap", CU_DEVICE_ATTRIBUTE_GPU_OVERLAP, "features", "bool", "can copy memory while a kernel runs (deprecated: see async_engine_count)"),
    a("multiprocessor_count", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "sm", "count", "number of streaming multiprocessors (SMs)"),
    a("kernel_exec_timeout", CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, "device", "bool", "kernels have a run-time limit (display watchdog)"),
    a("integrated", CU_DEVICE_ATTRIBUTE_INTEGRATED, "device", "bool", "GPU is integrated with host memory rather than discrete"),
    a("can_map_host_memory", CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, "host-memory", "bool", "can map page-locked host memory into the device's address space"),
    a("compute_mode", CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, "device", "enum", "who may create contexts on the device (CUcomputemode)"),
    a("maximum_texture1d_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, "texture", "elements", "widest 1-D texture"),
    a("maximum_texture2d_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH, "texture", "elements", "widest 2-D texture"),
    a("maximum_texture2d_height", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT, "texture", "elements", "tallest 2-D texture"),
    a("maximum_texture3d_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH, "texture", "elements", "widest 3-D texture"),
    a("maximum_texture3d_height", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT, "texture", "elements", "tallest 3-D texture"),
    a("maximum_texture3d_depth", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, "texture", "elements", "deepest 3-D texture"),
    a("maximum_texture2d_layered_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH, "texture", "elements", "widest 2-D layered texture", {"maximum_texture2d_array_width"}),
    a("maximum_texture2d_layered_height", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT, "texture", "elements", "tallest 2-D layered texture", {"maximum_texture2d_array_height"}),
    a("maximum_texture2d_layered_layers", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS, "texture", "layers", "most layers in a 2-D layered texture", {"maximum_texture2d_array_numslices"}),
    a("surface_alignment", CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT, "texture", "bytes", "alignment required of surface base addresses"),
    a("concurrent_kernels", CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, "features", "bool", "can run several kernels at the same time"),
    a("ecc_enabled", CU_DEVICE_ATTRIBUTE_ECC_ENABLED, "device", "bool", "ECC (error-correcting) memory is switched on"),
    a("pci_bus_id", CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, "topology", "id", "PCI bus number"),
    a("pci_device_id", CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, "topology", "id", "PCI device (slot) number on its bus"),
    a("tcc_driver", CU_DEVICE_ATTRIBUTE_TCC_DRIVER, "device", "bool", "runs under the Windows TCC (compute-only) driver model"),
    a("memory_clock_rate", CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "clocks", "kHz", "peak memory clock frequency"),
    a("global_memory_bus_width", CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "clocks", "bits", "width of the global memory bus (bandwidth = 2 x clock x width)"),
    a("l2_cache_size", CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "memory", "bytes", "size of the L2 cache"),
    a("max_threads_per_multiprocessor", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "sm", "threads", "most threads resident on one SM at a time"),
    a("async_engine_count", CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, "features", "count", "copy engines that can overlap transfers with kernels"),
    a("unified_addressing", CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, "host-memory", "bool", "shares one virtual address space with the host (UVA)"),
    a("maximum_texture1d_layered_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH, "texture", "elements", "widest 1-D layered texture"),
    a("maximum_texture1d_layered_layers", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS, "texture", "layers", "most layers in a 1-D layered texture"),
    dep("can_tex2d_gather", CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER, "texture", "bool", "supports 2-D texture gather (deprecated, do not use)"),
    a("maximum_texture2d_gather_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH, "texture", "elements", "widest 2-D texture that allows texture gather"),
    a("maximum_texture2d_gather_height", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT, "texture", "elements", "tallest 2-D texture that allows texture gather"),
    a("maximum_texture3d_width_alternate", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE, "texture", "elements", "widest 3-D texture in the alternate shape limits"),
    a("maximum_texture3d_height_alternate", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE, "texture", "elements", "tallest 3-D texture in the alternate shape limits"),
    a("maximum_texture3d_depth_alternate", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE, "texture", "elements", "deepest 3-D texture in the alternate shape limits"),
    a("pci_domain_id", CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, "topology", "id", "PCI domain number"),
    a("texture_pitch_alignment", CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, "texture", "bytes", "pitch alignment required of 2-D textures bound to linear memory"),
    a("maximum_texturecubemap_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH, "texture", "elements", "widest (and tallest) cubemap texture"),
    a("maximum_texturecubemap_layered_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH, "texture", "elements", "widest (and tallest) layered cubemap texture"),
    a("maximum_texturecubemap_layered_layers", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS, "texture", "layers", "most layers in a layered cubemap texture"),
    a("maximum_surface1d_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH, "texture", "elements", "widest 1-D surface"),
    a("maximum_surface2d_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH, "texture", "elements", "widest 2-D surface"),
    a("maximum_surface2d_height", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT, "texture", "elements", "tallest 2-D surface"),
    a("maximum_surface3d_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH, "texture", "elements", "widest 3-D surface"),
    a("maximum_surface3d_height", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT, "texture", "elements", "tallest 3-D surface"),
    a("maximum_surface3d_depth", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH, "texture", "elements", "deepest 3-D surface"),
    a("maximum_surface1d_layered_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH, "texture", "elements", "widest 1-D layered surface"),
    a("maximum_surface1d_layered_layers", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS, "texture", "layers", "most layers in a 1-D layered surface"),
    a("maximum_surface2d_layered_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH, "texture", "elements", "widest 2-D layered surface"),
    a("maximum_surface2d_layered_height", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT, "texture", "elements", "tallest 2-D layered surface"),
    a("maximum_surface2d_layered_layers", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS, "texture", "layers", "most layers in a 2-D layered surface"),
    a("maximum_surfacecubemap_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH, "texture", "elements", "widest (and tallest) cubemap surface"),
    a("maximum_surfacecubemap_layered_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH, "texture", "elements", "widest (and tallest) layered cubemap surface"),
    a("maximum_surfacecubemap_layered_layers", CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS, "texture", "layers", "most layers in a layered cubemap surface"),
    dep("maximum_texture1d_linear_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, "texture", "elements", "widest 1-D texture in linear memory (deprecated: ask cuDeviceGetTexture1DLinearMaxWidth)"),
    a("maximum_texture2d_linear_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH, "texture", "elements", "widest 2-D texture bound to linear memory"),
    a("maximum_texture2d_linear_height", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT, "texture", "elements", "tallest 2-D texture bound to linear memory"),
    a("maximum_texture2d_linear_pitch", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH, "texture", "bytes", "largest pitch of a 2-D texture bound to linear memory"),
    a("maximum_texture2d_mipmapped_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH, "texture", "elements", "widest mipmapped 2-D texture"),
    a("maximum_texture2d_mipmapped_height", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT, "texture", "elements", "tallest mipmapped 2-D texture"),
    a("compute_capability_major", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "device", "", "major compute capability (9 for sm_90)"),
    a("compute_capability_minor", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "device", "", "minor compute capability (0 for sm_90)"),
    a("maximum_texture1d_mipmapped_width", CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH, "texture", "elements", "widest mipmapped 1-D texture"),
    a("stream_priorities_supported", CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED, "features", "bool", "streams can have priorities"),
    a("global_l1_cache_supported", CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED, "sm", "bool", "global memory loads can be cached in L1"),
    a("local_l1_cache_supported", CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED, "sm", "bool", "local memory (spills, stack) can be cached in L1"),
    a("max_shared_memory_per_multiprocessor", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "shared-memory", "bytes", "shared memory of one SM, split among its resident blocks"),
    a("max_registers_per_multiprocessor", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "sm", "registers", "32-bit registers of one SM, split among its resident threads"),
    a("managed_memory", CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, "host-memory", "bool", "can allocate managed (unified) memory on this system"),
    a("multi_gpu_board", CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD, "topology", "bool", "sits on a board that carries several GPUs"),
    a("multi_gpu_board_group_id", CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID, "topology", "id", "identifier shared by the GPUs of one multi-GPU board"),
    a("host_native_atomic_supported", CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, "host-memory", "bool", "the link to the host supports every native atomic operation"),
    a("single_to_double_precision_perf_ratio", CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO, "sm", "ratio", "FP32 throughput divided by FP64 throughput"),
    a("pageable_memory_access", CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, "host-memory", "bool", "can access pageable host memory coherently without registering it"),
    a("concurrent_managed_access", CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, "host-memory", "bool", "can access managed memory while the CPU uses it too"),
    a("compute_preemption_supported", CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED, "features", "bool", "running kernels can be preempted (compute preemption)"),
    a("can_use_host_pointer_for_registered_mem", CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, "host-memory", "bool", "reaches registered host memory at the CPU's own virtual address"),
    dep("can_use_stream_mem_ops_v1", CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, "features", "bool", "supports the v1 stream memory operations, cuStreamBatchMemOp (deprecated)"),
    dep("can_use_64_bit_stream_mem_ops_v1", CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1, "features", "bool", "supports 64-bit v1 stream memory operations (deprecated)"),
    dep("can_use_stream_wait_value_nor_v1", CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1, "features", "bool", "supports the v1 CU_STREAM_WAIT_VALUE_NOR wait (deprecated)"),
    a("cooperative_launch", CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, "features", "bool", "supports cooperative launches (cuLaunchCooperativeKernel, grid sync)"),
    dep("cooperative_multi_device_launch", CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, "features", "bool", "supports cooperative launches across devices (deprecated)"),
    a("max_shared_memory_per_block_optin", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "shared-memory", "bytes", "shared memory one block may use after opting in (cuFuncSetAttribute)"),
    a("can_flush_remote_writes", CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, "features", "bool", "supports the flush-remote-writes stream memory operations"),
    a("host_register_supported", CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, "host-memory", "bool", "can page-lock existing host memory (cuMemHostRegister)"),
    a("pageable_memory_access_uses_host_page_tables", CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, "host-memory", "bool", "reaches pageable host memory through the host's page tables"),
    a("direct_managed_mem_access_from_host", CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, "host-memory", "bool", "the host reaches managed memory on the device without migrating it"),
    a("virtual_memory_management_supported", CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, "memory", "bool", "supports virtual memory management (cuMemAddressReserve, cuMemCreate, cuMemMap)", {"virtual_address_management_supported"}),
    a("handle_type_posix_file_descriptor_supported", CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, "memory", "bool", "cuMemCreate memory can be exported as a POSIX file descriptor"),
    a("handle_type_win32_handle_supported", CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED, "memory", "bool", "cuMemCreate memory can be exported as a Win32 NT handle"),
    a("handle_type_win32_kmt_handle_supported", CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED, "memory", "bool", "cuMemCreate memory can be exported as a Win32 KMT handle"),
    a("max_blocks_per_multiprocessor", CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, "sm", "blocks", "most blocks resident on one SM at a time"),
    a("generic_compression_supported", CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, "memory", "bool", "supports compressible memory"),
    a("max_persisting_l2_cache_size", CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, "memory", "bytes", "most L2 cache that can be set aside for persisting accesses"),
    a("max_access_policy_window_size", CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, "memory", "bytes", "largest L2 access policy window (CUaccessPolicyWindow::num_bytes)"),
    a("gpu_direct_rdma_with_cuda_vmm_supported", CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, "topology", "bool", "cuMemCreate accepts the GPUDirect RDMA flag"),
    a("reserved_shared_memory_per_block", CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, "shared-memory", "bytes", "shared memory the driver reserves in every block"),
    a("sparse_cuda_array_supported", CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, "texture", "bool", "supports sparse CUDA arrays and sparse mipmapped arrays"),
    a("read_only_host_register_supported", CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, "host-memory", "bool", "can register host memory that the GPU maps read-only"),
    a("timeline_semaphore_interop_supported", CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, "features", "bool", "supports external timeline semaphore interop"),
    a("memory_pools_supported", CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, "memory", "bool", "supports stream-ordered allocation (cuMemAllocAsync, memory pools)"),
    a("gpu_direct_rdma_supported", CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, "topology", "bool", "supports GPUDirect RDMA (other PCIe devices reach GPU memory)"),
    a("gpu_direct_rdma_flush_writes_options", CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, "topology", "bitmask", "ways to flush GPUDirect RDMA writes (CUflushGPUDirectRDMAWritesOptions)"),
    a("gpu_direct_rdma_writes_ordering", CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, "topology", "enum", "scope in which GPUDirect RDMA writes need no flush (CUGPUDirectRDMAWritesOrdering)"),
    a("mempool_supported_handle_types", CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, "memory", "bitmask", "handle types a memory pool can export for IPC (CUmemAllocationHandleType)"),
    a("cluster_launch", CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "features", "bool", "supports thread block clusters"),
    a("deferred_mapping_cuda_array_supported", CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, "texture", "bool", "supports deferred mapping of CUDA arrays and mipmapped arrays"),
    a("can_use_64_bit_stream_mem_ops", CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, "features", "bool", "supports 64-bit stream memory operations (cuStreamBatchMemOp)"),
    a("can_use_stream_wait_value_nor", CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, "features", "bool", "supports the CU_STREAM_WAIT_VALUE_NOR stream wait"),
    a("dma_buf_supported", CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, "memory", "bool", "can share device buffers through Linux dma_buf"),
    a("ipc_event_supported", CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, "features", "bool", "supports events shared between processes (IPC events)"),
    a("mem_sync_domain_count", CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT, "features", "count", "number of memory synchronization domains"),
    a("tensor_map_access_supported", CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED, "features", "bool", "can access memory through tensor maps (TMA)"),
    a("handle_type_fabric_supported", CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, "memory", "bool", "cuMemCreate memory can be exported as a fabric handle"),
    a("unified_function_pointers", CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS, "features", "bool", "supports unified function pointers between host and device"),
    a("numa_config", CU_DEVICE_ATTRIBUTE_NUMA_CONFIG, "topology", "enum", "whether the GPU's memory is a NUMA node (CUdeviceNumaConfig)"),
    a("numa_id", CU_DEVICE_ATTRIBUTE_NUMA_ID, "topology", "id", "NUMA node of the GPU's memory"),
    a("multicast_supported", CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, "topology", "bool", "supports switch multicast and reduction operations"),
    a("mps_enabled", CU_DEVICE_ATTRIBUTE_MPS_ENABLED, "device", "bool", "contexts on the device are shared through MPS"),
    a("host_numa_id", CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, "topology", "id", "NUMA node of the host closest to the device (-1: no NUMA)"),
    a("d3d12_cig_supported", CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED, "features", "bool", "supports CUDA in graphics (CIG) with Direct3D 12"),
    a("mem_decompress_algorithm_mask", CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK, "memory", "bitmask", "algorithms the decompression engine supports (CUmemDecompressAlgorithm)"),
    a("mem_decompress_maximum_length", CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH, "memory", "bytes", "longest input of one decompress operation"),
    a("vulkan_cig_supported", CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED, "features", "bool", "supports CUDA in graphics (CIG) with Vulkan"),
    a("gpu_pci_device_id", CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID, "topology", "id", "PCI device ID (high 16 bits) and vendor ID (low 16 bits)"),
    a("gpu_pci_subsystem_id", CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID, "topology", "id", "PCI subsystem ID (high 16 bits) and subsystem vendor ID (low 16 bits)"),
    a("host_numa_virtual_memory_management_supported", CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, "host-memory", "bool", "virtual memory management can place memory on a host NUMA node"),
    a("host_numa_memory_pools_supported", CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED, "host-memory", "bool", "memory pools can place memory on a host NUMA node"),
    a("host_numa_multinode_ipc_supported", CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED, "host-memory", "bool", "host-NUMA memory can be shared between nodes of a multi-node system"),
    a("host_memory_pools_supported", CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, "host-memory", "bool", "memory pools can place memory on the host"),
    a("host_virtual_memory_management_supported", CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, "host-memory", "bool", "virtual memory management can place memory on the host"),
    a("host_alloc_dma_buf_supported", CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED, "host-memory", "bool", "page-locked host buffers can be shared through dma_buf"),
    a("only_partial_host_native_atomic_supported", CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED, "host-memory", "bool", "the link to the host supports only some native atomic operations"),
  };
  return t;
}
// clang-format on

}  // namespace

std::span<const AttributeInfo> attribute_table() { return table(); }

std::string suggest_attribute(std::string_view name) {
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, name.size() / 3) + 1;
  for (const AttributeInfo& a : attribute_table()) {
    const std::size_t d = sys::edit_distance(name, a.name);
    if (d < best_d) {
      best_d = d;
      best = std::string(a.name);
    }
  }
  return best;
}

}  // namespace warplab::cu
