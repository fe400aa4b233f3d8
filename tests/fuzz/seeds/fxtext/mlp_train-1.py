class GraphModule(torch.nn.Module):
    def forward(self, L_fn_modules_0_parameters_weight_: "f32[64, 32][32, 1]cuda:0", L_fn_modules_0_parameters_bias_: "f32[64][1]cuda:0", L_args_0_: "f32[16, 32][32, 1]cuda:0", L_fn_modules_2_parameters_weight_: "f32[64][1]cuda:0", L_fn_modules_2_parameters_bias_: "f32[64][1]cuda:0", L_fn_modules_3_parameters_weight_: "f32[8, 64][64, 1]cuda:0", L_fn_modules_3_parameters_bias_: "f32[8][1]cuda:0"):
        l_fn_modules_0_parameters_weight_ = L_fn_modules_0_parameters_weight_
        l_fn_modules_0_parameters_bias_ = L_fn_modules_0_parameters_bias_
        l_args_0_ = L_args_0_
        l_fn_modules_2_parameters_weight_ = L_fn_modules_2_parameters_weight_
        l_fn_modules_2_parameters_bias_ = L_fn_modules_2_parameters_bias_
        l_fn_modules_3_parameters_weight_ = L_fn_modules_3_parameters_weight_
        l_fn_modules_3_parameters_bias_ = L_fn_modules_3_parameters_bias_

        # No stacktrace found for following nodes
        input_1: "f32[16, 64][64, 1]cuda:0" = torch._C._nn.linear(l_args_0_, l_fn_modules_0_parameters_weight_, l_fn_modules_0_parameters_bias_);  l_args_0_ = l_fn_modules_0_parameters_weight_ = l_fn_modules_0_parameters_bias_ = None
        input_2: "f32[16, 64][64, 1]cuda:0" = torch._C._nn.gelu(input_1, approximate = 'none');  input_1 = None
        input_3: "f32[16, 64][64, 1]cuda:0" = torch.nn.functional.layer_norm(input_2, (64,), l_fn_modules_2_parameters_weight_, l_fn_modules_2_parameters_bias_, 1e-05);  input_2 = l_fn_modules_2_parameters_weight_ = l_fn_modules_2_parameters_bias_ = None
        input_4: "f32[16, 8][8, 1]cuda:0" = torch._C._nn.linear(input_3, l_fn_modules_3_parameters_weight_, l_fn_modules_3_parameters_bias_);  input_3 = l_fn_modules_3_parameters_weight_ = l_fn_modules_3_parameters_bias_ = None
        return (input_4,)

