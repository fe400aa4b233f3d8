# A Dynamo graph traced under torch.autocast("cpu", torch.bfloat16), as FX prints it: a CPU
# region, whose casts cgscope does not model (conv2d and linear are on CPU autocast's
# lower-precision list too, so torch recorded bfloat16).
class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[2, 3, 8, 8][192, 64, 8, 1]cpu", L_w_: "f32[4, 3, 3, 3][27, 9, 3, 1]cpu", L_lw_: "f32[10, 256][256, 1]cpu"):
        l_x_ = L_x_
        l_w_ = L_w_
        l_lw_ = L_lw_
        _enter_autocast = torch.amp.autocast_mode._enter_autocast('cpu', torch.bfloat16, True, None)
        conv2d: "bf16[2, 4, 8, 8][256, 64, 8, 1]cpu" = torch.conv2d(l_x_, l_w_, None, 1, 1);  l_x_ = l_w_ = None
        flatten: "bf16[2, 256][256, 1]cpu" = conv2d.flatten(1);  conv2d = None
        linear: "bf16[2, 10][10, 1]cpu" = torch._C._nn.linear(flatten, l_lw_);  flatten = l_lw_ = None
        _exit_autocast = torch.amp.autocast_mode._exit_autocast(_enter_autocast);  _enter_autocast = _exit_autocast = None
        return (linear,)
