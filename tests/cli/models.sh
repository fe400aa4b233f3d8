#!/bin/sh
# Shape inference on real model graphs of families the fixtures do not have (torchvision, timm,
# Hugging Face; Dynamo, AOT, export, post-grad stages), recorded by torch 2.11 on the H200
# (tests/gpu/model_graphs.py, and GPT-2 48 layers and a 200-layer MLP backward from
# tests/gpu/torch_bench.py; tests/data/models.tar.xz). Mixtral's own op is declared the way
# a user would (tests/data/models.ops). The minimums are the targets.
: "${CGSCOPE:=./cgscope}"
here=$(dirname "$0")
python3 "$here/../shapes-models.py" --cgscope "$CGSCOPE" --ops "$here/../data/models.ops" \
    --min-shape 99.5 --min-stride 99.9 || exit 1
# the strides of view and reshape, as torch.compile's FakeTensor gives them (not computeStride:
# size-1 dims differ), on 3,000 random cases recorded from torch (tests/data/views.txt)
python3 "$here/../views-check.py" --cgscope "$CGSCOPE"
