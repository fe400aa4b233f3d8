# A vLLM-style Dynamo graph written by hand (the forms vLLM's models produce): the shipped
# declarations (ops/vllm.ops) say what each op returns and writes.
class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "bf16[8, 256][256, 1]cuda:0", L_w_: "bf16[256][1]cuda:0", L_q_: "bf16[8, 4, 64][256, 64, 1]cuda:0", L_k_: "bf16[8, 1, 64][64, 64, 1]cuda:0", L_v_: "bf16[8, 1, 64][64, 64, 1]cuda:0"):
        l_x_ = L_x_
        l_w_ = L_w_
        l_q_ = L_q_
        l_k_ = L_k_
        l_v_ = L_v_
        out: "bf16[8, 256][256, 1]cuda:0" = torch.empty_like(l_x_)
        rms_norm = torch.ops._C.rms_norm.default(out, l_x_, l_w_, 1e-06);  rms_norm = None
        attn = torch.ops.vllm.unified_attention.default(l_q_, l_k_, l_v_, 'model.layers.0.self_attn.attn')
        ar = torch.ops.vllm.all_reduce.default(out, 'tp:0')
        return (attn, ar)
