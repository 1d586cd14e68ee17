

import torch
from torch._inductor.codecache import CppWrapperCodeCache

cpp_wrapper_src = (
r"""
#include <torch/csrc/inductor/cpp_wrapper/cpu.h>
extern "C"  void  cpp_fused__scaled_dot_product_flash_attention_for_cpu_backward_sum_transpose_view_0(const float* in_ptr0,
                       const float* in_ptr1,
                       float* out_ptr0,
                       float* out_ptr1);
extern "C"  void  cpp_fused_gelu_gelu_backward_sum_view_1(float* in_out_ptr0,
                       const float* in_ptr0,
                       float* out_ptr0);
extern "C"  void  cpp_fused_add_sum_view_2(float* in_out_ptr0,
                       const float* in_ptr0,
                       float* out_ptr0);
extern "C"  void  cpp_fused_cat_sum_transpose_view_3(const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       float* out_ptr0,
                       float* out_ptr1,
                       float* out_ptr2,
                       float* out_ptr3);
extern "C"  void  cpp_fused_add_native_layer_norm_native_layer_norm_backward_view_4(float* in_out_ptr0,
                       const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       const float* in_ptr4,
                       float* out_ptr0,
                       float* out_ptr1,
                       float* out_ptr2,
                       float* out_ptr3);
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
    auto inputs = steal_from_raw_handles_to_raii_handles(input_handles, 18);
    auto primals_1 = std::move(inputs[0]);
    auto primals_2 = std::move(inputs[1]);
    auto primals_4 = std::move(inputs[2]);
    auto primals_6 = std::move(inputs[3]);
    auto primals_8 = std::move(inputs[4]);
    auto primals_10 = std::move(inputs[5]);
    auto getitem_1 = std::move(inputs[6]);
    auto rsqrt = std::move(inputs[7]);
    auto view = std::move(inputs[8]);
    auto permute_1 = std::move(inputs[9]);
    auto permute_2 = std::move(inputs[10]);
    auto permute_3 = std::move(inputs[11]);
    auto getitem_5 = std::move(inputs[12]);
    auto getitem_6 = std::move(inputs[13]);
    auto view_8 = std::move(inputs[14]);
    auto addmm_2 = std::move(inputs[15]);
    auto view_10 = std::move(inputs[16]);
    auto tangents_1 = std::move(inputs[17]);
    assert_size_stride(getitem_6, {2L, 4L, 8L}, {32L, 1L, 4L}, "input");
    static constexpr int64_t int_array_0[] = {2L, 4L, 8L};
    static constexpr int64_t int_array_1[] = {32L, 8L, 1L};
    AtenTensorHandle buf11_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_0, int_array_1, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf11_handle));
    RAIIAtenTensorHandle buf11(buf11_handle);
    assert_size_stride(tangents_1, {2L, 8L, 32L}, {256L, 32L, 1L}, "input");
    static constexpr int64_t int_array_2[] = {1L, 32L};
    static constexpr int64_t int_array_3[] = {32L, 1L};
    AtenTensorHandle buf2_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_2, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf2_handle));
    RAIIAtenTensorHandle buf2(buf2_handle);
    assert_size_stride(primals_10, {32L, 128L}, {128L, 1L}, "input");
    cpp_fused__scaled_dot_product_flash_attention_for_cpu_backward_sum_transpose_view_0((const float*)(getitem_6.data_ptr()), (const float*)(tangents_1.data_ptr()), (float*)(buf11.data_ptr()), (float*)(buf2.data_ptr()));
    getitem_6.reset();
    static constexpr int64_t int_array_4[] = {16L, 128L};
    static constexpr int64_t int_array_5[] = {128L, 1L};
    AtenTensorHandle buf0_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_4, int_array_5, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf0_handle));
    RAIIAtenTensorHandle buf0(buf0_handle);
    // Topologically Sorted Source Nodes: [view_12, linear_3, permute_8, mm], Original ATen: [aten.view, aten.t, aten.mm]
    static constexpr int64_t int_array_6[] = {16L, 32L};
    static constexpr int64_t int_array_7[] = {32L, 1L};
    AtenTensorHandle tmp_primals_10_0;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_new_tensor_handle(primals_10, &tmp_primals_10_0));
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf0, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(tangents_1, 2, int_array_6, int_array_7, 0L)), RAIIAtenTensorHandle(tmp_primals_10_0)));
    primals_10.reset();
    assert_size_stride(addmm_2, {16L, 128L}, {128L, 1L}, "input");
    static constexpr int64_t int_array_8[] = {2L, 8L, 128L};
    static constexpr int64_t int_array_9[] = {1024L, 128L, 1L};
    auto buf3 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf0, 3, int_array_8, int_array_9, 0L)); buf0.reset();  // reuse
    static constexpr int64_t int_array_10[] = {1L, 128L};
    AtenTensorHandle buf6_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_10, int_array_5, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf6_handle));
    RAIIAtenTensorHandle buf6(buf6_handle);
    assert_size_stride(primals_8, {128L, 32L}, {32L, 1L}, "input");
    cpp_fused_gelu_gelu_backward_sum_view_1((float*)(buf3.data_ptr()), (const float*)(addmm_2.data_ptr()), (float*)(buf6.data_ptr()));
    addmm_2.reset();
    static constexpr int64_t int_array_11[] = {16L, 32L};
    AtenTensorHandle buf4_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_11, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf4_handle));
    RAIIAtenTensorHandle buf4(buf4_handle);
    // Topologically Sorted Source Nodes: [view_14, linear_2, gelu, mul_6, mul_7, mul_8, exp, mul_9, mul_10, add_6, mul_11, view_15, permute_12, mm_2], Original ATen: [aten.view, aten.gelu, aten.gelu_backward, aten.t, aten.mm]
    static constexpr int64_t int_array_12[] = {16L, 128L};
    static constexpr int64_t int_array_13[] = {128L, 1L};
    AtenTensorHandle tmp_primals_8_1;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_new_tensor_handle(primals_8, &tmp_primals_8_1));
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf4, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf3, 2, int_array_12, int_array_13, 0L)), RAIIAtenTensorHandle(tmp_primals_8_1)));
    primals_8.reset();
    static constexpr int64_t int_array_14[] = {2L, 8L, 32L};
    static constexpr int64_t int_array_15[] = {256L, 32L, 1L};
    auto buf7 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf4, 3, int_array_14, int_array_15, 0L)); buf4.reset();  // reuse
    AtenTensorHandle buf10_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_2, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf10_handle));
    RAIIAtenTensorHandle buf10(buf10_handle);
    assert_size_stride(primals_6, {32L, 32L}, {32L, 1L}, "input");
    cpp_fused_add_sum_view_2((float*)(buf7.data_ptr()), (const float*)(tangents_1.data_ptr()), (float*)(buf10.data_ptr()));
    AtenTensorHandle buf8_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_11, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf8_handle));
    RAIIAtenTensorHandle buf8(buf8_handle);
    // Topologically Sorted Source Nodes: [view_17, add_7, view_18, linear_1, permute_16, mm_4], Original ATen: [aten.view, aten.add, aten.t, aten.mm]
    AtenTensorHandle tmp_primals_6_2;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_new_tensor_handle(primals_6, &tmp_primals_6_2));
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf8, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf7, 2, int_array_6, int_array_7, 0L)), RAIIAtenTensorHandle(tmp_primals_6_2)));
    primals_6.reset();
    assert_size_stride(permute_1, {2L, 4L, 8L, 8L}, {768L, 8L, 96L, 1L}, "input");
    assert_size_stride(permute_2, {2L, 4L, 8L, 8L}, {768L, 8L, 96L, 1L}, "input");
    assert_size_stride(permute_3, {2L, 4L, 8L, 8L}, {768L, 8L, 96L, 1L}, "input");
    assert_size_stride(getitem_5, {2L, 4L, 8L, 8L}, {256L, 8L, 32L, 1L}, "input");
    // Topologically Sorted Source Nodes: [view_20, view_21, permute_20, _scaled_dot_product_flash_attention_for_cpu_backward], Original ATen: [aten.view, aten.transpose, aten._scaled_dot_product_flash_attention_for_cpu_backward]
    static constexpr int64_t int_array_16[] = {2L, 4L, 8L, 8L};
    static constexpr int64_t int_array_17[] = {256L, 8L, 32L, 1L};
    AtenTensorHandle buf13_handle;
    AtenTensorHandle buf14_handle;
    AtenTensorHandle buf15_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu_backward(wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf8, 4, int_array_16, int_array_17, 0L)), permute_1, permute_2, permute_3, getitem_5, buf11, 0.0, 1, nullptr, nullptr, &buf13_handle, &buf14_handle, &buf15_handle));
    RAIIAtenTensorHandle buf13(buf13_handle);
    RAIIAtenTensorHandle buf14(buf14_handle);
    RAIIAtenTensorHandle buf15(buf15_handle);
    buf11.reset();
    permute_1.reset();
    permute_2.reset();
    permute_3.reset();
    assert_size_stride(buf13, {2L, 4L, 8L, 8L}, {256L, 8L, 32L, 1L}, "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default");
    assert_size_stride(buf14, {2L, 4L, 8L, 8L}, {256L, 8L, 32L, 1L}, "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default");
    assert_size_stride(buf15, {2L, 4L, 8L, 8L}, {256L, 8L, 32L, 1L}, "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default");

    static constexpr int64_t int_array_18[] = {2L, 8L, 96L};
    static constexpr int64_t int_array_19[] = {768L, 96L, 1L};
    AtenTensorHandle buf19_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_18, int_array_19, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf19_handle));
    RAIIAtenTensorHandle buf19(buf19_handle);
    static constexpr int64_t int_array_20[] = {2L, 8L, 32L};
    static constexpr int64_t int_array_21[] = {768L, 96L, 1L};
    auto buf16 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf19, 3, int_array_20, int_array_21, 0L));  // alias
    auto buf17 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf19, 3, int_array_20, int_array_21, 32L));  // alias
    auto buf18 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf19, 3, int_array_20, int_array_21, 64L));  // alias
    static constexpr int64_t int_array_22[] = {1L, 96L};
    static constexpr int64_t int_array_23[] = {96L, 1L};
    AtenTensorHandle buf22_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_22, int_array_23, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf22_handle));
    RAIIAtenTensorHandle buf22(buf22_handle);
    cpp_fused_cat_sum_transpose_view_3((const float*)(buf13.data_ptr()), (const float*)(buf14.data_ptr()), (const float*)(buf15.data_ptr()), (const float*)(buf19.data_ptr()), (float*)(buf16.data_ptr()), (float*)(buf17.data_ptr()), (float*)(buf18.data_ptr()), (float*)(buf22.data_ptr()));
    buf13.reset();
    buf14.reset();
    buf15.reset();
    buf16.reset();
    buf17.reset();
    buf18.reset();
    static constexpr int64_t int_array_24[] = {32L, 32L};
    AtenTensorHandle buf9_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_24, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf9_handle));
    RAIIAtenTensorHandle buf9(buf9_handle);
    // Topologically Sorted Source Nodes: [view_17, add_7, view_18, permute_17, transpose_3, reshape, linear_1, mm_5], Original ATen: [aten.view, aten.add, aten.t, aten.transpose, aten.mm]
    static constexpr int64_t int_array_25[] = {32L, 16L};
    static constexpr int64_t int_array_26[] = {1L, 32L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf9, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf7, 2, int_array_25, int_array_26, 0L)), wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(getitem_5, 2, int_array_6, int_array_7, 0L))));
    getitem_5.reset();
    assert_size_stride(primals_4, {96L, 32L}, {32L, 1L}, "input");
    auto buf20 = std::move(buf8);  // reuse
    // Topologically Sorted Source Nodes: [view_25, linear, permute_24, mm_6], Original ATen: [aten.view, aten.t, aten.mm]
    static constexpr int64_t int_array_27[] = {16L, 96L};
    static constexpr int64_t int_array_28[] = {96L, 1L};
    AtenTensorHandle tmp_primals_4_3;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_new_tensor_handle(primals_4, &tmp_primals_4_3));
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf20, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf19, 2, int_array_27, int_array_28, 0L)), RAIIAtenTensorHandle(tmp_primals_4_3)));
    primals_4.reset();
    assert_size_stride(primals_2, {32L, }, {1L, }, "input");
    assert_size_stride(primals_1, {2L, 8L, 32L}, {256L, 32L, 1L}, "input");
    assert_size_stride(getitem_1, {2L, 8L, 1L}, {8L, 1L, 1L}, "input");
    assert_size_stride(rsqrt, {2L, 8L, 1L}, {8L, 1L, 1L}, "input");
    static constexpr int64_t int_array_29[] = {2L, 8L, 1L};
    static constexpr int64_t int_array_30[] = {8L, 1L, 16L};
    AtenTensorHandle buf23_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_29, int_array_30, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf23_handle));
    RAIIAtenTensorHandle buf23(buf23_handle);
    AtenTensorHandle buf24_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(3, int_array_29, int_array_30, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf24_handle));
    RAIIAtenTensorHandle buf24(buf24_handle);
    auto buf27 = std::move(buf7);  // reuse
    static constexpr int64_t int_array_31[] = {32L, };
    static constexpr int64_t int_array_32[] = {1L, };
    AtenTensorHandle buf25_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(1, int_array_31, int_array_32, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf25_handle));
    RAIIAtenTensorHandle buf25(buf25_handle);
    AtenTensorHandle buf26_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(1, int_array_31, int_array_32, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf26_handle));
    RAIIAtenTensorHandle buf26(buf26_handle);
    assert_size_stride(view, {16L, 32L}, {32L, 1L}, "input");
    cpp_fused_add_native_layer_norm_native_layer_norm_backward_view_4((float*)(buf27.data_ptr()), (const float*)(buf20.data_ptr()), (const float*)(primals_2.data_ptr()), (const float*)(primals_1.data_ptr()), (const float*)(getitem_1.data_ptr()), (const float*)(rsqrt.data_ptr()), (float*)(buf23.data_ptr()), (float*)(buf24.data_ptr()), (float*)(buf25.data_ptr()), (float*)(buf26.data_ptr()));
    buf20.reset();
    buf23.reset();
    buf24.reset();
    getitem_1.reset();
    primals_1.reset();
    primals_2.reset();
    rsqrt.reset();
    static constexpr int64_t int_array_33[] = {96L, 32L};
    AtenTensorHandle buf21_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_33, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf21_handle));
    RAIIAtenTensorHandle buf21(buf21_handle);
    // Topologically Sorted Source Nodes: [view_25, permute_25, mm_7], Original ATen: [aten.view, aten.t, aten.mm]
    static constexpr int64_t int_array_34[] = {96L, 16L};
    static constexpr int64_t int_array_35[] = {1L, 96L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf21, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf19, 2, int_array_34, int_array_35, 0L)), view));
    buf19.reset();
    view.reset();
    assert_size_stride(view_8, {16L, 32L}, {32L, 1L}, "input");
    static constexpr int64_t int_array_36[] = {128L, 32L};
    AtenTensorHandle buf5_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_36, int_array_3, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf5_handle));
    RAIIAtenTensorHandle buf5(buf5_handle);
    // Topologically Sorted Source Nodes: [view_14, linear_2, gelu, mul_6, mul_7, mul_8, exp, mul_9, mul_10, add_6, mul_11, view_15, permute_13, mm_3], Original ATen: [aten.view, aten.gelu, aten.gelu_backward, aten.t, aten.mm]
    static constexpr int64_t int_array_37[] = {128L, 16L};
    static constexpr int64_t int_array_38[] = {1L, 128L};
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf5, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf3, 2, int_array_37, int_array_38, 0L)), view_8));
    buf3.reset();
    view_8.reset();
    assert_size_stride(view_10, {16L, 128L}, {128L, 1L}, "input");
    static constexpr int64_t int_array_39[] = {32L, 128L};
    AtenTensorHandle buf1_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_39, int_array_5, cached_torch_dtype_float32, cached_torch_device_type_cpu, 0, &buf1_handle));
    RAIIAtenTensorHandle buf1(buf1_handle);
    // Topologically Sorted Source Nodes: [view_12, permute_9, mm_1], Original ATen: [aten.view, aten.t, aten.mm]
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf1, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(tangents_1, 2, int_array_25, int_array_26, 0L)), view_10));
    tangents_1.reset();
    view_10.reset();
    static constexpr int64_t int_array_40[] = {96L, };
    static constexpr int64_t int_array_41[] = {128L, };
    auto var_0 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf22, 1, int_array_40, int_array_32, 0L));
    auto var_1 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf10, 1, int_array_31, int_array_32, 0L));
    auto var_2 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf6, 1, int_array_41, int_array_32, 0L));
    auto var_3 = wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(buf2, 1, int_array_31, int_array_32, 0L));
    output_handles[0] = buf27.release();
    output_handles[1] = buf25.release();
    output_handles[2] = buf26.release();
    output_handles[3] = buf21.release();
    output_handles[4] = var_0.release();
    output_handles[5] = buf9.release();
    output_handles[6] = var_1.release();
    output_handles[7] = buf5.release();
    output_handles[8] = var_2.release();
    output_handles[9] = buf1.release();
    output_handles[10] = var_3.release();
} // inductor_entry_impl

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused__scaled_dot_product_flash_attention_for_cpu_backward_sum_transpose_view_0(const float* in_ptr0,
                       const float* in_ptr1,
                       float* out_ptr0,
                       float* out_ptr1)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(2L); x0+=static_cast<int64_t>(1L))
        {
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(4L); x1+=static_cast<int64_t>(16L))
            {
                for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(8L); x2+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0L) && x1 < static_cast<int64_t>(4L) && x2 >= static_cast<int64_t>(0L) && x2 < static_cast<int64_t>(8L)))
                        {
                            alignas(std::max(std::size_t(16), alignof(float))) float tmp0[16*16];
                            transpose_mxn<float,static_cast<int64_t>(8L),static_cast<int64_t>(4L),false>(in_ptr0 + static_cast<int64_t>(x1 + 4L*x2 + 32L*x0), static_cast<int64_t>(4L), tmp0, static_cast<int64_t>(8L));
                            for (long x1_inner = 0; x1_inner < static_cast<int64_t>(4L); x1_inner++)
                            {
                                auto tmp1 = at::vec::Vectorized<float>::loadu(tmp0 + static_cast<int64_t>(8L*x1_inner), static_cast<int64_t>(8L));
                                tmp1.store(out_ptr0 + static_cast<int64_t>(x2 + 8L*x1 + 8L*x1_inner + 32L*x0), static_cast<int64_t>(8L));
                            }
                        }
                    }
                }
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(32L); x0+=static_cast<int64_t>(16L))
        {
            {
                float tmp_acc0 = 0;
                at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(16L); x1+=static_cast<int64_t>(1L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(32L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x0 + 32L*x1), static_cast<int64_t>(16));
                            tmp_acc0_vec = tmp_acc0_vec + tmp0;
                        }
                    }
                }
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(32L)))
                {
                    tmp_acc0_vec.store(out_ptr1 + static_cast<int64_t>(x0));
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_gelu_gelu_backward_sum_view_1(float* in_out_ptr0,
                       const float* in_ptr0,
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
                        auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
                        auto tmp2 = static_cast<float>(0.7071067811865476);
                        auto tmp3 = at::vec::Vectorized<float>(tmp2);
                        auto tmp4 = tmp1 * tmp3;
                        auto tmp5 = tmp4.erf();
                        auto tmp6 = static_cast<float>(1.0);
                        auto tmp7 = at::vec::Vectorized<float>(tmp6);
                        auto tmp8 = tmp5 + tmp7;
                        auto tmp9 = static_cast<float>(0.5);
                        auto tmp10 = at::vec::Vectorized<float>(tmp9);
                        auto tmp11 = tmp8 * tmp10;
                        auto tmp12 = tmp1 * tmp1;
                        auto tmp13 = static_cast<float>(-0.5);
                        auto tmp14 = at::vec::Vectorized<float>(tmp13);
                        auto tmp15 = tmp12 * tmp14;
                        auto tmp16 = tmp15.exp();
                        auto tmp17 = static_cast<float>(0.3989422804014327);
                        auto tmp18 = at::vec::Vectorized<float>(tmp17);
                        auto tmp19 = tmp16 * tmp18;
                        auto tmp20 = tmp1 * tmp19;
                        auto tmp21 = tmp11 + tmp20;
                        auto tmp22 = tmp0 * tmp21;
                        tmp22.store(in_out_ptr0 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(128L); x0+=static_cast<int64_t>(16L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(16L); x1+=static_cast<int64_t>(1L))
                    {
                        {
                            if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(128L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x0 + 128L*x1), static_cast<int64_t>(16));
                                tmp_acc0_vec = tmp_acc0_vec + tmp0;
                            }
                        }
                    }
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(128L)))
                    {
                        tmp_acc0_vec.store(out_ptr0 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_add_sum_view_2(float* in_out_ptr0,
                       const float* in_ptr0,
                       float* out_ptr0)
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
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(32L); x0+=static_cast<int64_t>(16L))
        {
            {
                float tmp_acc0 = 0;
                at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(16L); x1+=static_cast<int64_t>(1L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(32L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x0 + 32L*x1), static_cast<int64_t>(16));
                            tmp_acc0_vec = tmp_acc0_vec + tmp0;
                        }
                    }
                }
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(32L)))
                {
                    tmp_acc0_vec.store(out_ptr0 + static_cast<int64_t>(x0));
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_cat_sum_transpose_view_3(const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       float* out_ptr0,
                       float* out_ptr1,
                       float* out_ptr2,
                       float* out_ptr3)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
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
                        tmp0.store(out_ptr0 + static_cast<int64_t>(x1 + 96L*x0));
                    }
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
                        auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                        tmp0.store(out_ptr1 + static_cast<int64_t>(x1 + 96L*x0));
                    }
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
                        auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                        tmp0.store(out_ptr2 + static_cast<int64_t>(x1 + 96L*x0));
                    }
                }
            }
        }
    }
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(96L); x0+=static_cast<int64_t>(16L))
            {
                {
                    float tmp_acc0 = 0;
                    at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                    for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(16L); x1+=static_cast<int64_t>(1L))
                    {
                        {
                            if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(96L)))
                            {
                                auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr3 + static_cast<int64_t>(x0 + 96L*x1), static_cast<int64_t>(16));
                                tmp_acc0_vec = tmp_acc0_vec + tmp0;
                            }
                        }
                    }
                    if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(96L)))
                    {
                        tmp_acc0_vec.store(out_ptr3 + static_cast<int64_t>(x0));
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}

#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  cpp_fused_add_native_layer_norm_native_layer_norm_backward_view_4(float* in_out_ptr0,
                       const float* in_ptr0,
                       const float* in_ptr1,
                       const float* in_ptr2,
                       const float* in_ptr3,
                       const float* in_ptr4,
                       float* out_ptr0,
                       float* out_ptr1,
                       float* out_ptr2,
                       float* out_ptr3)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(16L); x0+=static_cast<int64_t>(1L))
        {
            {
                float tmp_acc0 = 0;
                at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                float tmp_acc1 = 0;
                at::vec::Vectorized<float> tmp_acc1_vec = at::vec::Vectorized<float>(0);
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(16L))
                {
                    {
                        if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(32L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                            auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                            auto tmp3 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                            auto tmp4 = in_ptr3[static_cast<int64_t>(x0)];
                            auto tmp7 = in_ptr4[static_cast<int64_t>(x0)];
                            auto tmp2 = tmp0 * tmp1;
                            auto tmp5 = at::vec::Vectorized<float>(tmp4);
                            auto tmp6 = tmp3 - tmp5;
                            auto tmp8 = at::vec::Vectorized<float>(tmp7);
                            auto tmp9 = tmp6 * tmp8;
                            auto tmp10 = tmp2 * tmp9;
                            tmp_acc0_vec = tmp_acc0_vec + tmp2;
                            tmp_acc1_vec = tmp_acc1_vec + tmp10;
                        }
                    }
                }
                tmp_acc0 = tmp_acc0 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc0_vec);
                out_ptr0[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
                tmp_acc1 = tmp_acc1 + at::vec::vec_reduce_all<float, 1>([](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp_acc1_vec);
                out_ptr1[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc1);
            }
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(32L)))
                    {
                        auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                        auto tmp1 = in_ptr4[static_cast<int64_t>(x0)];
                        auto tmp4 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                        auto tmp5 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                        auto tmp9 = out_ptr0[static_cast<int64_t>(x0)];
                        auto tmp12 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                        auto tmp13 = in_ptr3[static_cast<int64_t>(x0)];
                        auto tmp18 = out_ptr1[static_cast<int64_t>(x0)];
                        auto tmp2 = static_cast<float>(32.0);
                        auto tmp3 = tmp1 / tmp2;
                        auto tmp6 = tmp4 * tmp5;
                        auto tmp7 = at::vec::Vectorized<float>(tmp2);
                        auto tmp8 = tmp6 * tmp7;
                        auto tmp10 = at::vec::Vectorized<float>(tmp9);
                        auto tmp11 = tmp8 - tmp10;
                        auto tmp14 = at::vec::Vectorized<float>(tmp13);
                        auto tmp15 = tmp12 - tmp14;
                        auto tmp16 = at::vec::Vectorized<float>(tmp1);
                        auto tmp17 = tmp15 * tmp16;
                        auto tmp19 = at::vec::Vectorized<float>(tmp18);
                        auto tmp20 = tmp17 * tmp19;
                        auto tmp21 = tmp11 - tmp20;
                        auto tmp22 = at::vec::Vectorized<float>(tmp3);
                        auto tmp23 = tmp22 * tmp21;
                        auto tmp24 = tmp0 + tmp23;
                        tmp24.store(in_out_ptr0 + static_cast<int64_t>(x1 + 32L*x0));
                    }
                }
            }
        }
    }
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(32L); x0+=static_cast<int64_t>(16L))
        {
            {
                float tmp_acc0 = 0;
                at::vec::Vectorized<float> tmp_acc0_vec = at::vec::Vectorized<float>(0);
                float tmp_acc1 = 0;
                at::vec::Vectorized<float> tmp_acc1_vec = at::vec::Vectorized<float>(0);
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(16L); x1+=static_cast<int64_t>(1L))
                {
                    {
                        if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(32L)))
                        {
                            auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x0 + 32L*x1), static_cast<int64_t>(16));
                            auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr2 + static_cast<int64_t>(x0 + 32L*x1), static_cast<int64_t>(16));
                            auto tmp2 = in_ptr3[static_cast<int64_t>(x1)];
                            auto tmp5 = in_ptr4[static_cast<int64_t>(x1)];
                            auto tmp3 = at::vec::Vectorized<float>(tmp2);
                            auto tmp4 = tmp1 - tmp3;
                            auto tmp6 = at::vec::Vectorized<float>(tmp5);
                            auto tmp7 = tmp4 * tmp6;
                            auto tmp8 = tmp0 * tmp7;
                            tmp_acc0_vec = tmp_acc0_vec + tmp8;
                            tmp_acc1_vec = tmp_acc1_vec + tmp0;
                        }
                    }
                }
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0) && x0 < static_cast<int64_t>(32L)))
                {
                    tmp_acc0_vec.store(out_ptr2 + static_cast<int64_t>(x0));
                    tmp_acc1_vec.store(out_ptr3 + static_cast<int64_t>(x0));
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
    num_outputs=11,
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
    _shared_storage_9 = rand_strided((1536,), (1,), device='cpu', dtype=torch.float32)
    primals_1 = rand_strided((2, 8, 32), (256, 32, 1), device='cpu', dtype=torch.float32)
    primals_2 = rand_strided((32, ), (1, ), device='cpu', dtype=torch.float32)
    primals_4 = rand_strided((96, 32), (32, 1), device='cpu', dtype=torch.float32)
    primals_6 = rand_strided((32, 32), (32, 1), device='cpu', dtype=torch.float32)
    primals_8 = rand_strided((128, 32), (32, 1), device='cpu', dtype=torch.float32)
    primals_10 = rand_strided((32, 128), (128, 1), device='cpu', dtype=torch.float32)
    getitem_1 = rand_strided((2, 8, 1), (8, 1, 1), device='cpu', dtype=torch.float32)
    rsqrt = rand_strided((2, 8, 1), (8, 1, 1), device='cpu', dtype=torch.float32)
    view = rand_strided((16, 32), (32, 1), device='cpu', dtype=torch.float32)
    permute_1 = torch.as_strided(_shared_storage_9, (2, 4, 8, 8), (768, 8, 96, 1))
    permute_2 = torch.as_strided(_shared_storage_9, (2, 4, 8, 8), (768, 8, 96, 1))
    permute_3 = torch.as_strided(_shared_storage_9, (2, 4, 8, 8), (768, 8, 96, 1))
    getitem_5 = rand_strided((2, 4, 8, 8), (256, 8, 32, 1), device='cpu', dtype=torch.float32)
    getitem_6 = rand_strided((2, 4, 8), (32, 1, 4), device='cpu', dtype=torch.float32)
    view_8 = rand_strided((16, 32), (32, 1), device='cpu', dtype=torch.float32)
    addmm_2 = rand_strided((16, 128), (128, 1), device='cpu', dtype=torch.float32)
    view_10 = rand_strided((16, 128), (128, 1), device='cpu', dtype=torch.float32)
    tangents_1 = rand_strided((2, 8, 32), (256, 32, 1), device='cpu', dtype=torch.float32)
    return [primals_1, primals_2, primals_4, primals_6, primals_8, primals_10, getitem_1, rsqrt, view, permute_1, permute_2, permute_3, getitem_5, getitem_6, view_8, addmm_2, view_10, tangents_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat, device='cpu')


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
