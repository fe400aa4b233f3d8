def __transformed_code_0_for_toy_function(a, b):
    __temp_1 = __compiled_fn_1(a, b)
    x = __temp_1[0]
    if __temp_1[1]:
        return __resume_at_30_2(b, x)
    return __resume_at_38_3(b, x)
