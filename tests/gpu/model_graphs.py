#!/usr/bin/env python3
"""Graphs of model families the fixtures lack, for judging shape inference (issue 11 targets).

On the GPU machine (torch 2.11, torchvision, timm, transformers; random weights, no network),
for each model below, in eval mode under torch.no_grad() on CUDA:
  dynamo       the graph Dynamo hands its backend (static shapes);
  dynamo_dyn   the same with dynamic=True (symbolic batch and sequence sizes), some models;
  aot          the ATen inference graph AOTAutograd makes of it (functionalized, decomposed
               as Inductor's decomposition table does), before Inductor's own passes;
  export       torch.export.export(strict=False) graph, also saved as .pt2;
  post_grad    with --post-grad, the graph Inductor lowers (the bridge's dump_backend).
Files go to OUT/models/<model>.<stage>.json (and .pt2); OUT/models.log says what failed.

usage: model_graphs.py --out DIR [--deadline SECONDS] [--post-grad]
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "python"))

import torch  # noqa: E402

import cgscope_torch as ct  # noqa: E402


def vision(name):
    import torchvision.models as tvm
    return lambda: (getattr(tvm, name)(weights=None), (torch.randn(2, 3, 224, 224),))


def timm_model(name, size=224):
    import timm
    return lambda: (timm.create_model(name, pretrained=False), (torch.randn(2, 3, size, size),))


def hf(kind):
    import transformers as tr

    def make():
        ids = torch.randint(0, 500, (2, 24))
        if kind == "bert":
            cfg = tr.BertConfig(vocab_size=500, hidden_size=64, num_hidden_layers=2,
                                num_attention_heads=4, intermediate_size=128)
            return tr.BertModel(cfg), (ids,)
        if kind == "qwen2":
            cfg = tr.Qwen2Config(vocab_size=500, hidden_size=64, num_hidden_layers=2,
                                 num_attention_heads=4, num_key_value_heads=2,
                                 intermediate_size=128, use_cache=False)
            return tr.Qwen2ForCausalLM(cfg), (ids,)
        if kind == "mixtral":
            cfg = tr.MixtralConfig(vocab_size=500, hidden_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2,
                                   intermediate_size=128, num_local_experts=4,
                                   use_cache=False)
            return tr.MixtralForCausalLM(cfg), (ids,)
        if kind == "t5":
            cfg = tr.T5Config(vocab_size=500, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                              num_heads=4)
            return tr.T5EncoderModel(cfg), (ids,)
        if kind == "distilbert":
            cfg = tr.DistilBertConfig(vocab_size=500, dim=64, n_layers=2, n_heads=4,
                                      hidden_dim=128)
            return tr.DistilBertModel(cfg), (ids,)
        if kind == "whisper":
            cfg = tr.WhisperConfig(vocab_size=500, d_model=64, encoder_layers=2,
                                   decoder_layers=2, encoder_attention_heads=4,
                                   decoder_attention_heads=4, encoder_ffn_dim=128,
                                   decoder_ffn_dim=128, num_mel_bins=16,
                                   max_source_positions=32, pad_token_id=0,
                                   bos_token_id=1, eos_token_id=2,
                                   decoder_start_token_id=1)
            return tr.WhisperModel(cfg).get_encoder(), (torch.randn(2, 16, 64),)
        raise KeyError(kind)
    return make


MODELS = [
    ("swin_t", vision("swin_t"), False),
    ("densenet121", vision("densenet121"), False),
    ("regnet_y_400mf", vision("regnet_y_400mf"), False),
    ("shufflenet_v2_x0_5", vision("shufflenet_v2_x0_5"), False),
    ("mobilenet_v3_small", vision("mobilenet_v3_small"), True),
    ("googlenet", vision("googlenet"), False),
    ("mnasnet0_5", vision("mnasnet0_5"), False),
    ("maxvit_t", vision("maxvit_t"), False),
    ("deit_tiny", timm_model("deit_tiny_patch16_224"), False),
    ("levit_128s", timm_model("levit_128s"), False),
    ("poolformer_s12", timm_model("poolformer_s12"), False),
    ("mixer_s16", timm_model("mixer_s16_224"), False),
    ("coat_lite_tiny", timm_model("coat_lite_tiny"), False),
    ("bert", hf("bert"), True),
    ("qwen2", hf("qwen2"), True),
    ("mixtral", hf("mixtral"), False),
    ("t5_encoder", hf("t5"), False),
    ("distilbert", hf("distilbert"), False),
    ("whisper_encoder", hf("whisper"), False),
]


def save_pt2_without_weights(ep, path):
    """torch.export.save, then the archive again without its data/ entries (weights and
    constants): cgscope reads only the model JSON, and the weights would be most of it."""
    import zipfile
    tmp = path + ".full"
    torch.export.save(ep, tmp)
    with zipfile.ZipFile(tmp) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            if "/data/" in info.filename:
                continue
            zout.writestr(info, zin.read(info.filename))
    os.unlink(tmp)


def capture_dynamo(model, inputs, dynamic):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    torch.compile(model, backend=backend, dynamic=dynamic)(*inputs)
    return graphs


def capture_aot(model, inputs):
    from torch._functorch.aot_autograd import aot_module_simplified
    from torch._inductor.decomposition import select_decomp_table
    graphs = []

    def fw(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def backend(gm, example_inputs):
        return aot_module_simplified(gm, example_inputs, fw_compiler=fw,
                                     decompositions=select_decomp_table())

    torch._dynamo.reset()
    torch.compile(model, backend=backend)(*inputs)
    return graphs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline", type=float, default=300)
    ap.add_argument("--post-grad", action="store_true")
    a = ap.parse_args()
    out = os.path.join(a.out, "models")
    os.makedirs(out, exist_ok=True)
    log = open(os.path.join(a.out, "models.log"), "w")
    t_end = time.time() + a.deadline

    def say(msg):
        print(msg, flush=True)
        log.write(msg + "\n")
        log.flush()

    for name, make, dyn in MODELS:
        if time.time() > t_end:
            say("deadline: stopped before %s" % name)
            break
        t0 = time.time()
        try:
            model, inputs = make()
        except Exception as exc:
            say("%s: build failed: %s" % (name, exc))
            continue
        model = model.cuda().eval()
        inputs = tuple(x.cuda() for x in inputs)
        stages = [("dynamo", lambda: capture_dynamo(model, inputs, False))]
        if dyn:
            stages.append(("dynamo_dyn", lambda: capture_dynamo(model, inputs, True)))
        stages.append(("aot", lambda: capture_aot(model, inputs)))
        for stage, fn in stages:
            try:
                with torch.no_grad():
                    graphs = fn()
                for i, gm in enumerate(graphs):
                    suffix = "" if i == 0 else ".%d" % i
                    st = "dynamo" if stage.startswith("dynamo") else "aot_forward"
                    ct.dump(gm, os.path.join(out, "%s.%s%s.json" % (name, stage, suffix)),
                            stage=st, is_inference=True)
                say("%s %s: %d graph(s)" % (name, stage, len(graphs)))
            except Exception as exc:
                say("%s %s: FAILED %s: %s" % (name, stage, type(exc).__name__,
                                               str(exc).splitlines()[0][:200]))
        try:
            with torch.no_grad():
                ep = torch.export.export(model, inputs, strict=False)
            save_pt2_without_weights(ep, os.path.join(out, "%s.export.pt2" % name))
            ct.dump(ep.graph_module, os.path.join(out, "%s.export.json" % name),
                    stage="export", is_inference=True)
            say("%s export: ok" % name)
        except Exception as exc:
            say("%s export: FAILED %s: %s" % (name, type(exc).__name__,
                                             str(exc).splitlines()[0][:200]))
        if a.post_grad and dyn:
            try:
                torch._dynamo.reset()
                be = ct.dump_backend(os.path.join(out, "pg"), post_grad=True,
                                     prefix=name + ".")
                with torch.no_grad():
                    torch.compile(model, backend=be)(*inputs)
                say("%s post_grad: ok" % name)
            except Exception as exc:
                say("%s post_grad: FAILED %s: %s" % (name, type(exc).__name__,
                                                    str(exc).splitlines()[0][:200]))
        say("   %s: %.1f s" % (name, time.time() - t0))


if __name__ == "__main__":
    main()
