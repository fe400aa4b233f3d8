class GraphModule(torch.nn.Module):
    def forward(self, L_s_modules_b_parameters_weight_: "f32[4, 16][16, 1]cuda:0", L_s_modules_b_parameters_bias_: "f32[4][1]cuda:0", L_y_: "f32[8, 16][16, 1]cuda:0"):
        l_s_modules_b_parameters_weight_ = L_s_modules_b_parameters_weight_
        l_s_modules_b_parameters_bias_ = L_s_modules_b_parameters_bias_
        l_y_ = L_y_

        # File: /work/main/tests/gpu/trace_graphs.py:76 in torch_dynamo_resume_in_forward_at_75, code: return s.b(y).softmax(-1)
        linear: "f32[8, 4][4, 1]cuda:0" = torch._C._nn.linear(l_y_, l_s_modules_b_parameters_weight_, l_s_modules_b_parameters_bias_);  l_y_ = l_s_modules_b_parameters_weight_ = l_s_modules_b_parameters_bias_ = None
        softmax: "f32[8, 4][4, 1]cuda:0" = linear.softmax(-1);  linear = None
        return (softmax,)

