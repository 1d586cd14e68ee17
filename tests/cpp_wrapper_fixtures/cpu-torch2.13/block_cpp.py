

import torch
from torch._inductor.codecache import CppWrapperCodeCache

cpp_wrapper_src = (
r"""
#include <torch/csrc/inductor/cpp_wrapper/cpu.h>
extern "C"  void  cpp_fused_native_layer_norm_0(float* in_out_ptr0,
                       const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       float* out_ptr1,
                       float* out_ptr2);
extern "C"  void  cpp_fused_add_view_1(float* in_out_ptr0,
                       const float* in_ptr0);
extern "C"  void  cpp_fused_gelu_view_2(float* in_out_ptr0);
extern "C"  void  cpp_fused_add_view_3(float* in_out_ptr0,
                       const float* in_ptr0);
CACHE_TORCH_DTYPE(float32);
CACHE_TORCH_DEVICE(cpu);

void inductor_entry_impl(
    AtenTensorHandle*
        input_handles, // array of input AtenTensorHandle; handles
                        // are stolen; the array itself is borrowed
    AtenTensorHandle*
        output_handles  // array for writing output AtenTensorHandle; handles
                        // will be stolen by the caller; the array itself is
                        // borrowed)
) {
    py::gil_scoped_release_simple release;
    auto inputs = steal_from_raw_handles_to_raii_handles(input_handles, 11);
    auto arg0_1 = std::move(inputs[0]);
    auto arg1_1 = std::move(inputs[1]);
    auto arg2_1 = std::move(inputs[2]);
    auto arg3_1 = std::move(inputs[3]);
    auto arg4_1 = std::move(inputs[4]);
    auto arg5_1 = std::move(inputs[5]);
    auto arg6_1 = std::move(inputs[6]);
    auto arg7_1 = std::move(inputs[7]);
    auto arg8_1 = std::move(inputs[8]);
    auto arg9_1 = std::move(inputs[9]);
    auto arg10_1 = std::move(inputs[10]);
    assert_size_stride(arg0_1, {2L, 8L, 32L}, {256L, 32L, 1L}, "input");
    assert_size_stride(arg1_1, {32L, }, {1L, }, "input");
    assert_size_stride(arg2_1, {32L, }, {1L, }, "input");
    static constexpr int64_t int_array_0[] = {2L, 8L, 1L};
    static constexpr int64_t int_array_1[] = {8L, 1L, 16L};
    AtenTensorHandle buf0_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_0, int_array_1, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf0_handle));
    RAIIAtenTensorHandle buf0(buf0_handle);
    auto buf1 = std::move(buf0);  // reuse
    AtenTensorHandle buf2_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_0, int_array_1, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf2_handle));
    RAIIAtenTensorHandle buf2(buf2_handle);
    static constexpr int64_t int_array_2[] = {2L, 8L, 32L};
    static constexpr int64_t int_array_3[] = {256L, 32L, 1L};
    AtenTensorHandle buf3_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_2, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf3_handle));
    RAIIAtenTensorHandle buf3(buf3_handle);
    assert_size_stride(arg4_1, {96L, }, {1L, }, "input");
    assert_size_stride(arg3_1, {96L, 32L}, {32L, 1L}, "input");
    cpp_fused_native_layer_norm_0((float*)(buf1.data_ptr()), (const float*)(arg0_1.data_ptr()), (const float*)(arg1_1.data_ptr()), (const float*)(arg2_1.data_ptr()), (float*)(buf2.data_ptr()), (float*)(buf3.data_ptr()));
    arg1_1.reset();
    arg2_1.reset();
    buf1.reset();
    buf2.reset();
    static constexpr int64_t int_array_4[] = {16L, 96L};
    static constexpr int64_t int_array_5[] = {96L, 1L};
    AtenTensorHandle buf4_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_4, int_array_5, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf4_handle));
    RAIIAtenTensorHandle buf4(buf4_handle);
    // Topologically Sorted Source Nodes: [layer_norm, linear], Original ATen: [aten.native_layer_norm, aten.view, aten.t, aten.addmm]
    static constexpr int64_t int_array_6[] = {16L, 32L};
    static constexpr int64_t int_array_7[] = {32L, 1L};
    static constexpr int64_t int_array_8[] = {32L, 96L};
    static constexpr int64_t int_array_9[] = {1L, 32L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf4, arg4_1, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf3, 2, int_array_6, int_array_7, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(arg3_1, 2, int_array_8, int_array_9, 0L)), 1L, 1L));
    arg3_1.reset();
    arg4_1.reset();
    // Topologically Sorted Source Nodes: [linear, split, view, q_1, view_1, k_1, view_2, v_1, a], Original ATen: [aten.view, aten.split, aten.transpose, aten._scaled_dot_product_flash_attention_for_cpu]
    static constexpr int64_t int_array_10[] = {2L, 4L, 8L, 8L};
    static constexpr int64_t int_array_11[] = {768L, 8L, 96L, 1L};
    AtenTensorHandle buf6_handle;
    AtenTensorHandle buf7_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 4, int_array_10, int_array_11, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 4, int_array_10, int_array_11, 32L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 4, int_array_10, int_array_11, 64L)), 0.0, 1, nullptr, nullptr, &buf6_handle, &buf7_handle));
    RAIIAtenTensorHandle buf6(buf6_handle);
    RAIIAtenTensorHandle buf7(buf7_handle);
    buf4.reset();
    assert_size_stride(buf6, {2L, 4L, 8L, 8L}, {256L, 8L, 32L, 1L}, "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default");

    assert_size_stride(arg6_1, {32L, }, {1L, }, "input");
    assert_size_stride(arg5_1, {32L, 32L}, {32L, 1L}, "input");
    static constexpr int64_t int_array_12[] = {16L, 32L};
    static constexpr int64_t int_array_13[] = {32L, 1L};
    auto buf8 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf3, 2, int_array_12, int_array_13, 0L)); buf3.reset();  // reuse
    // Topologically Sorted Source Nodes: [transpose_3, reshape, linear_1], Original ATen: [aten.transpose, aten.view, aten.t, aten.addmm]
    static constexpr int64_t int_array_14[] = {32L, 32L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf8, arg6_1, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf6, 2, int_array_6, int_array_7, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(arg5_1, 2, int_array_14, int_array_9, 0L)), 1L, 1L));
    arg5_1.reset();
    arg6_1.reset();
    buf6.reset();
    auto buf9 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf8, 3, int_array_2, int_array_3, 0L)); buf8.reset();  // reuse
    assert_size_stride(arg8_1, {128L, }, {1L, }, "input");
    assert_size_stride(arg7_1, {128L, 32L}, {32L, 1L}, "input");
    cpp_fused_add_view_1((float*)(buf9.data_ptr()), (const float*)(arg0_1.data_ptr()));
    arg0_1.reset();
    static constexpr int64_t int_array_15[] = {16L, 128L};
    static constexpr int64_t int_array_16[] = {128L, 1L};
    AtenTensorHandle buf10_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_15, int_array_16, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf10_handle));
    RAIIAtenTensorHandle buf10(buf10_handle);
    // Topologically Sorted Source Nodes: [linear_1, x, linear_2], Original ATen: [aten.view, aten.add, aten.t, aten.addmm]
    static constexpr int64_t int_array_17[] = {32L, 128L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf10, arg8_1, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf9, 2, int_array_6, int_array_7, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(arg7_1, 2, int_array_17, int_array_9, 0L)), 1L, 1L));
    arg7_1.reset();
    arg8_1.reset();
    static constexpr int64_t int_array_18[] = {2L, 8L, 128L};
    static constexpr int64_t int_array_19[] = {1024L, 128L, 1L};
    auto buf11 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf10, 3, int_array_18, int_array_19, 0L)); buf10.reset();  // reuse
    assert_size_stride(arg10_1, {32L, }, {1L, }, "input");
    assert_size_stride(arg9_1, {32L, 128L}, {128L, 1L}, "input");
    cpp_fused_gelu_view_2((float*)(buf11.data_ptr()));
    AtenTensorHandle buf12_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_12, int_array_13, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf12_handle));
    RAIIAtenTensorHandle buf12(buf12_handle);
    // Topologically Sorted Source Nodes: [linear_2, gelu, linear_3], Original ATen: [aten.view, aten.gelu, aten.t, aten.addmm]
    static constexpr int64_t int_array_20[] = {16L, 128L};
    static constexpr int64_t int_array_21[] = {128L, 1L};
    static constexpr int64_t int_array_22[] = {128L, 32L};
    static constexpr int64_t int_array_23[] = {1L, 128L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf12, arg10_1, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf11, 2, int_array_20, int_array_21, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(arg9_1, 2, int_array_22, int_array_23, 0L)), 1L, 1L));
    arg10_1.reset();
    arg9_1.reset();
    buf11.reset();
    auto buf13 = std::move(buf9);  // reuse
    cpp_fused_add_view_3((float*)(buf13.data_ptr()), (const float*)(buf12.data_ptr()));
    output_handles[0] = buf13.release();
} // inductor_entry_impl

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_native_layer_norm_0(float* in_out_ptr0,
                       const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       float* out_ptr1,
                       float* out_ptr2)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    auto out_ptr0 = in_out_ptr0;
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16L); x0+=static_cast<int64_t>(1L))
        {
            {
                float tmp_acc0 = 0;
                at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(32L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                            tmp_acc0_vec = tmp_acc0_vec + tmp0;
                        }
                    }
                }
                tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                in_out_ptr0[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16L); x0+=static_cast<int64_t>(16L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(16L)))
                {
                    auto tmp0 = at::vec::Vectorized<float>::loadu(out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                    auto tmp1 = static_cast<float>(32.0);
                    auto tmp2 = at::vec::Vectorized<float>(tmp1);
                    auto tmp3 = tmp0 / tmp2;
                    tmp3.store(in_out_ptr0 + static_cast<int64_t>(x0));
                }
            }
        }
    }
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16L); x0+=static_cast<int64_t>(1L))
        {
            {
                float tmp_acc0 = 0;
                at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(32L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                            auto tmp1 = in_out_ptr0[static_cast<int64_t>(x0)];
                            auto tmp2 = at::vec::Vectorized<float>(tmp1);
                            auto tmp3 = tmp0 - tmp2;
                            auto tmp4 = tmp3 * tmp3;
                            tmp_acc0_vec = tmp_acc0_vec + tmp4;
                        }
                    }
                }
                tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                out_ptr1[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
            }
        }
    }
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16L); x0+=static_cast<int64_t>(1L))
        {
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(32L)))
                    {
                        auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                        auto tmp1 = in_out_ptr0[static_cast<int64_t>(x0)];
                        auto tmp4 = out_ptr1[static_cast<int64_t>(x0)];
                        auto tmp12 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                        auto tmp14 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                        auto tmp2 = at::vec::Vectorized<float>(tmp1);
                        auto tmp3 = tmp0 - tmp2;
                        auto tmp5 = static_cast<float>(32.0);
                        auto tmp6 = tmp4 / tmp5;
                        auto tmp7 = static_cast<float>(1e-05);
                        auto tmp8 = float(tmp6 + tmp7);
                        auto tmp9 = 1 / std::sqrt(tmp8);
                        auto tmp10 = at::vec::Vectorized<float>(tmp9);
                        auto tmp11 = tmp3 * tmp10;
                        auto tmp13 = tmp11 * tmp12;
                        auto tmp15 = tmp13 + tmp14;
                        tmp15.store(out_ptr2 + static_cast<int64_t>(x1 + 32L*x0));
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_add_view_1(float* in_out_ptr0,
                       const float* in_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(512L); x0+=static_cast<int64_t>(16L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(512L)))
                {
                    auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                    auto tmp1 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                    auto tmp2 = tmp0 + tmp1;
                    tmp2.store(in_out_ptr0 + static_cast<int64_t>(x0));
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_gelu_view_2(float* in_out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2048L); x0+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(2048L)))
                    {
                        auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp1 = static_cast<float>(0.5);
                        auto tmp2 = at::vec::Vectorized<float>(tmp1);
                        auto tmp3 = tmp0 * tmp2;
                        auto tmp4 = static_cast<float>(0.7071067811865476);
                        auto tmp5 = at::vec::Vectorized<float>(tmp4);
                        auto tmp6 = tmp0 * tmp5;
                        auto tmp7 = tmp6.erf();
                        auto tmp8 = static_cast<float>(1.0);
                        auto tmp9 = at::vec::Vectorized<float>(tmp8);
                        auto tmp10 = tmp7 + tmp9;
                        auto tmp11 = tmp3 * tmp10;
                        tmp11.store(in_out_ptr0 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_add_view_3(float* in_out_ptr0,
                       const float* in_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(512L); x0+=static_cast<int64_t>(16L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(512L)))
                {
                    auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                    auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                    auto tmp2 = tmp0 + tmp1;
                    tmp2.store(in_out_ptr0 + static_cast<int64_t>(x0));
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
"""
)

inductor_entry = CppWrapperCodeCache.load_pybinding(
    argtypes=["std::vector<AtenTensorHandle>"],
    main_code=cpp_wrapper_src,
    device_type="cpu",
    needs_vec_isa=True,
    kernel_needs_vec_isa=None,
    num_outputs=1,
    kernel_code=None,
    extra_flags=(),
)

def _wrap_func(f):
    def g(args):
        input_tensors = [arg if isinstance(arg, torch.Tensor) else torch.tensor(arg, device='cpu') for arg in args]
        input_handles = torch._C._aoti.unsafe_alloc_void_ptrs_from_tensors(input_tensors)

        args.clear()
        del input_tensors

        output_handles = f(input_handles)
        output_tensors = torch._C._aoti.alloc_tensors_by_stealing_from_void_ptrs(output_handles)
        return output_tensors

    return g

call = _wrap_func(inductor_entry)


def get_args():
    from torch._dynamo.testing import rand_strided
    arg0_1 = rand_strided((2, 8, 32), (256, 32, 1), device='cpu', dtype=torch.float32)
    arg1_1 = rand_strided((32, ), (1, ), device='cpu', dtype=torch.float32)
    arg2_1 = rand_strided((32, ), (1, ), device='cpu', dtype=torch.float32)
    arg3_1 = rand_strided((96, 32), (32, 1), device='cpu', dtype=torch.float32)
    arg4_1 = rand_strided((96, ), (1, ), device='cpu', dtype=torch.float32)
    arg5_1 = rand_strided((32, 32), (32, 1), device='cpu', dtype=torch.float32)
    arg6_1 = rand_strided((32, ), (1, ), device='cpu', dtype=torch.float32)
    arg7_1 = rand_strided((128, 32), (32, 1), device='cpu', dtype=torch.float32)
    arg8_1 = rand_strided((128, ), (1, ), device='cpu', dtype=torch.float32)
    arg9_1 = rand_strided((32, 128), (128, 1), device='cpu', dtype=torch.float32)
    arg10_1 = rand_strided((32, ), (1, ), device='cpu', dtype=torch.float32)
    return [arg0_1, arg1_1, arg2_1, arg3_1, arg4_1, arg5_1, arg6_1, arg7_1, arg8_1, arg9_1, arg10_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat, device='cpu')


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
