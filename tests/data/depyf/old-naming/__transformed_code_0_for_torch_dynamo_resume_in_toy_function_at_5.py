def __transformed_code_0_for_torch_dynamo_resume_in_toy_function_at_5(b, x):
    a = None # this line helps the compiler to generate bytecode with at least the same number of local variables as the original function

    return __compiled_fn_5(x, b)[0]
