class GraphModule(torch.nn.Module):
    def forward(self, L_s_modules_a_parameters_weight_: "f32[16, 16][16, 1]cuda:0", L_s_modules_a_parameters_bias_: "f32[16][1]cuda:0", L_x_: "f32[8, 16][16, 1]cuda:0"):
        l_s_modules_a_parameters_weight_ = L_s_modules_a_parameters_weight_
        l_s_modules_a_parameters_bias_ = L_s_modules_a_parameters_bias_
        l_x_ = L_x_

        # File: /work/main/tests/gpu/trace_graphs.py:74 in forward, code: y = torch.tanh(s.a(x)) * 2
        linear: "f32[8, 16][16, 1]cuda:0" = torch._C._nn.linear(l_x_, l_s_modules_a_parameters_weight_, l_s_modules_a_parameters_bias_);  l_x_ = l_s_modules_a_parameters_weight_ = l_s_modules_a_parameters_bias_ = None
        tanh: "f32[8, 16][16, 1]cuda:0" = torch.tanh(linear);  linear = None
        y: "f32[8, 16][16, 1]cuda:0" = tanh * 2;  tanh = None
        return (y,)

