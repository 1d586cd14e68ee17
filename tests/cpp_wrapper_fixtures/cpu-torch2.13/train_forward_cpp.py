

import torch
from torch._inductor.codecache import CppWrapperCodeCache

cpp_wrapper_src = (
r"""
#include <torch/csrc/inductor/cpp_wrapper/cpu.h>
extern "C"  void  cpp_fused_native_layer_norm_0(float* in_out_ptr0,
                       float* in_out_ptr1,
                       const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       float* out_ptr2);
extern "C"  void  cpp_fused_add_view_1(float* in_out_ptr0,
                       const float* in_ptr0);
extern "C"  void  cpp_fused_gelu_view_2(const float* in_ptr0,
                       float* out_ptr0);
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
    auto primals_1 = std::move(inputs[0]);
    auto primals_2 = std::move(inputs[1]);
    auto primals_3 = std::move(inputs[2]);
    auto primals_4 = std::move(inputs[3]);
    auto primals_5 = std::move(inputs[4]);
    auto primals_6 = std::move(inputs[5]);
    auto primals_7 = std::move(inputs[6]);
    auto primals_8 = std::move(inputs[7]);
    auto primals_9 = std::move(inputs[8]);
    auto primals_10 = std::move(inputs[9]);
    auto primals_11 = std::move(inputs[10]);
    assert_size_stride(primals_1, {2L, 8L, 32L}, {256L, 32L, 1L}, "input");
    assert_size_stride(primals_2, {32L, }, {1L, }, "input");
    assert_size_stride(primals_3, {32L, }, {1L, }, "input");
    static constexpr int64_t int_array_0[] = {2L, 8L, 1L};
    static constexpr int64_t int_array_1[] = {8L, 1L, 16L};
    AtenTensorHandle buf0_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_0, int_array_1, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf0_handle));
    RAIIAtenTensorHandle buf0(buf0_handle);
    auto buf1 = std::move(buf0);  // reuse
    AtenTensorHandle buf2_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_0, int_array_1, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf2_handle));
    RAIIAtenTensorHandle buf2(buf2_handle);
    static constexpr int64_t int_array_2[] = {8L, 1L, 1L};
    auto buf3 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf2, 3, int_array_0, int_array_2, 0L)); buf2.reset();  // reuse
    static constexpr int64_t int_array_3[] = {2L, 8L, 32L};
    static constexpr int64_t int_array_4[] = {256L, 32L, 1L};
    AtenTensorHandle buf4_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_3, int_array_4, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf4_handle));
    RAIIAtenTensorHandle buf4(buf4_handle);
    assert_size_stride(primals_5, {96L, }, {1L, }, "input");
    assert_size_stride(primals_4, {96L, 32L}, {32L, 1L}, "input");
    cpp_fused_native_layer_norm_0((float*)(buf1.data_ptr()), (float*)(buf3.data_ptr()), (const float*)(primals_1.data_ptr()), (const float*)(primals_2.data_ptr()), (const float*)(primals_3.data_ptr()), (float*)(buf4.data_ptr()));
    primals_3.reset();
    static constexpr int64_t int_array_5[] = {16L, 96L};
    static constexpr int64_t int_array_6[] = {96L, 1L};
    AtenTensorHandle buf5_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_5, int_array_6, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf5_handle));
    RAIIAtenTensorHandle buf5(buf5_handle);
    // Topologically Sorted Source Nodes: [layer_norm, linear], Original ATen: [aten.native_layer_norm, aten.view, aten.t, aten.addmm]
    static constexpr int64_t int_array_7[] = {16L, 32L};
    static constexpr int64_t int_array_8[] = {32L, 1L};
    static constexpr int64_t int_array_9[] = {32L, 96L};
    static constexpr int64_t int_array_10[] = {1L, 32L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf5, primals_5, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 2, int_array_7, int_array_8, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(primals_4, 2, int_array_9, int_array_10, 0L)), 1L, 1L));
    primals_5.reset();
    // Topologically Sorted Source Nodes: [linear, split, view, q_1, view_1, k_1, view_2, v_1, a], Original ATen: [aten.view, aten.split, aten.transpose, aten._scaled_dot_product_flash_attention_for_cpu]
    static constexpr int64_t int_array_11[] = {2L, 4L, 8L, 8L};
    static constexpr int64_t int_array_12[] = {768L, 8L, 96L, 1L};
    AtenTensorHandle buf7_handle;
    AtenTensorHandle buf8_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf5, 4, int_array_11, int_array_12, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf5, 4, int_array_11, int_array_12, 32L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf5, 4, int_array_11, int_array_12, 64L)), 0.0, 1, nullptr, nullptr, &buf7_handle, &buf8_handle));
    RAIIAtenTensorHandle buf7(buf7_handle);
    RAIIAtenTensorHandle buf8(buf8_handle);
    assert_size_stride(buf7, {2L, 4L, 8L, 8L}, {256L, 8L, 32L, 1L}, "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default");
    assert_size_stride(buf8, {2L, 4L, 8L}, {32L, 1L, 4L}, "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default");

    assert_size_stride(primals_7, {32L, }, {1L, }, "input");
    assert_size_stride(primals_6, {32L, 32L}, {32L, 1L}, "input");
    static constexpr int64_t int_array_13[] = {16L, 32L};
    static constexpr int64_t int_array_14[] = {32L, 1L};
    AtenTensorHandle buf9_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_13, int_array_14, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf9_handle));
    RAIIAtenTensorHandle buf9(buf9_handle);
    // Topologically Sorted Source Nodes: [transpose_3, reshape, linear_1], Original ATen: [aten.transpose, aten.view, aten.t, aten.addmm]
    static constexpr int64_t int_array_15[] = {32L, 32L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf9, primals_7, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf7, 2, int_array_7, int_array_8, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(primals_6, 2, int_array_15, int_array_10, 0L)), 1L, 1L));
    primals_7.reset();
    auto buf10 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf9, 3, int_array_3, int_array_4, 0L)); buf9.reset();  // reuse
    assert_size_stride(primals_9, {128L, }, {1L, }, "input");
    assert_size_stride(primals_8, {128L, 32L}, {32L, 1L}, "input");
    cpp_fused_add_view_1((float*)(buf10.data_ptr()), (const float*)(primals_1.data_ptr()));
    static constexpr int64_t int_array_16[] = {16L, 128L};
    static constexpr int64_t int_array_17[] = {128L, 1L};
    AtenTensorHandle buf11_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_16, int_array_17, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf11_handle));
    RAIIAtenTensorHandle buf11(buf11_handle);
    // Topologically Sorted Source Nodes: [linear_1, x, linear_2], Original ATen: [aten.view, aten.add, aten.t, aten.addmm]
    static constexpr int64_t int_array_18[] = {32L, 128L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf11, primals_9, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf10, 2, int_array_7, int_array_8, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(primals_8, 2, int_array_18, int_array_10, 0L)), 1L, 1L));
    primals_9.reset();
    static constexpr int64_t int_array_19[] = {2L, 8L, 128L};
    static constexpr int64_t int_array_20[] = {1024L, 128L, 1L};
    AtenTensorHandle buf12_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_19, int_array_20, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf12_handle));
    RAIIAtenTensorHandle buf12(buf12_handle);
    assert_size_stride(primals_11, {32L, }, {1L, }, "input");
    assert_size_stride(primals_10, {32L, 128L}, {128L, 1L}, "input");
    cpp_fused_gelu_view_2((const float*)(buf11.data_ptr()), (float*)(buf12.data_ptr()));
    AtenTensorHandle buf13_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_13, int_array_14, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf13_handle));
    RAIIAtenTensorHandle buf13(buf13_handle);
    // Topologically Sorted Source Nodes: [linear_2, gelu, linear_3], Original ATen: [aten.view, aten.gelu, aten.t, aten.addmm]
    static constexpr int64_t int_array_21[] = {16L, 128L};
    static constexpr int64_t int_array_22[] = {128L, 1L};
    static constexpr int64_t int_array_23[] = {128L, 32L};
    static constexpr int64_t int_array_24[] = {1L, 128L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_addmm_out(buf13, primals_11, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf12, 2, int_array_21, int_array_22, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(primals_10, 2, int_array_23, int_array_24, 0L)), 1L, 1L));
    primals_11.reset();
    auto buf14 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf13, 3, int_array_3, int_array_4, 0L)); buf13.reset();  // reuse
    cpp_fused_add_view_1((float*)(buf14.data_ptr()), (const float*)(buf10.data_ptr()));
    static constexpr int64_t int_array_25[] = {2L, 4L, 8L, 8L};
    static constexpr int64_t int_array_26[] = {768L, 8L, 96L, 1L};
    auto var_0 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf1, 3, int_array_0, int_array_2, 0L));
    auto var_1 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 2, int_array_13, int_array_14, 0L));
    auto var_2 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf5, 4, int_array_25, int_array_26, 0L));
    auto var_3 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf5, 4, int_array_25, int_array_26, 32L));
    auto var_4 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf5, 4, int_array_25, int_array_26, 64L));
    auto var_5 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf10, 2, int_array_13, int_array_14, 0L));
    auto var_6 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf12, 2, int_array_16, int_array_17, 0L));
    output_handles[0] = buf14.release();
    output_handles[1] = primals_1.release();
    output_handles[2] = primals_2.release();
    output_handles[3] = primals_4.release();
    output_handles[4] = primals_6.release();
    output_handles[5] = primals_8.release();
    output_handles[6] = primals_10.release();
    output_handles[7] = var_0.release();
    output_handles[8] = buf3.release();
    output_handles[9] = var_1.release();
    output_handles[10] = var_2.release();
    output_handles[11] = var_3.release();
    output_handles[12] = var_4.release();
    output_handles[13] = buf7.release();
    output_handles[14] = buf8.release();
    output_handles[15] = var_5.release();
    output_handles[16] = buf11.release();
    output_handles[17] = var_6.release();
} // inductor_entry_impl

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_native_layer_norm_0(float* in_out_ptr0,
                       float* in_out_ptr1,
                       const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       float* out_ptr2)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    auto out_ptr0 = in_out_ptr0;
    auto out_ptr1 = in_out_ptr1;
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
                in_out_ptr1[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16L); x0+=static_cast<int64_t>(16L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(16L)))
                {
                    auto tmp0 = at::vec::Vectorized<float>::loadu(out_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                    auto tmp1 = static_cast<float>(32.0);
                    auto tmp2 = at::vec::Vectorized<float>(tmp1);
                    auto tmp3 = tmp0 / tmp2;
                    auto tmp4 = static_cast<float>(1e-05);
                    auto tmp5 = at::vec::Vectorized<float>(tmp4);
                    auto tmp6 = tmp3 + tmp5;
                    auto tmp7 = tmp6.rsqrt();
                    tmp7.store(in_out_ptr1 + static_cast<int64_t>(x0));
                }
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
                        auto tmp4 = in_out_ptr1[static_cast<int64_t>(x0)];
                        auto tmp7 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                        auto tmp9 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                        auto tmp2 = at::vec::Vectorized<float>(tmp1);
                        auto tmp3 = tmp0 - tmp2;
                        auto tmp5 = at::vec::Vectorized<float>(tmp4);
                        auto tmp6 = tmp3 * tmp5;
                        auto tmp8 = tmp6 * tmp7;
                        auto tmp10 = tmp8 + tmp9;
                        tmp10.store(out_ptr2 + static_cast<int64_t>(x1 + 32L*x0));
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
extern "C"  void  cpp_fused_gelu_view_2(const float* in_ptr0,
                       float* out_ptr0)
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
                        auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
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
                        tmp11.store(out_ptr0 + static_cast<int64_t>(x0));
                    }
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
    num_outputs=18,
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
    primals_1 = rand_strided((2, 8, 32), (256, 32, 1), device='cpu', dtype=torch.float32)
    primals_2 = rand_strided((32, ), (1, ), device='cpu', dtype=torch.float32)
    primals_3 = rand_strided((32, ), (1, ), device='cpu', dtype=torch.float32)
    primals_4 = rand_strided((96, 32), (32, 1), device='cpu', dtype=torch.float32)
    primals_5 = rand_strided((96, ), (1, ), device='cpu', dtype=torch.float32)
    primals_6 = rand_strided((32, 32), (32, 1), device='cpu', dtype=torch.float32)
    primals_7 = rand_strided((32, ), (1, ), device='cpu', dtype=torch.float32)
    primals_8 = rand_strided((128, 32), (32, 1), device='cpu', dtype=torch.float32)
    primals_9 = rand_strided((128, ), (1, ), device='cpu', dtype=torch.float32)
    primals_10 = rand_strided((32, 128), (128, 1), device='cpu', dtype=torch.float32)
    primals_11 = rand_strided((32, ), (1, ), device='cpu', dtype=torch.float32)
    return [primals_1, primals_2, primals_3, primals_4, primals_5, primals_6, primals_7, primals_8, primals_9, primals_10, primals_11]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat, device='cpu')


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
