{   (None, 0, 'inductor'): (   'fgjmx3tq2ma5hy4rgnqzj6hotjf2fkmtr6mwuwoo6a5yw3k6qp7d',
                               '/root/.cache/vllm/torch_compile_cache/5f2a9c1e0b/rank_0_0/backbone/inductor_cache/gj/cgjmx3tq2ma5hy4rgnqzj6hotjf2fkmtr6mwuwoo6a5yw3k6qp7d.py'),
    (None, 1, 'inductor'): (   'fu3a6lv7ycvgcx4ijw3mo7ksm3jxp4d2ew6b3xepfxrbymc7rnbw',
                               '/root/.cache/vllm/torch_compile_cache/5f2a9c1e0b/rank_0_0/backbone/inductor_cache/u3/cu3a6lv7ycvgcx4ijw3mo7ksm3jxp4d2ew6b3xepfxrbymc7rnbw.py'),
    (8, 0, 'inductor'): (   'f7pq2gmvn3bx7w5c4tz2hyc6k4q3x2vcd7mxe3yrj5ozkd5n2jqa',
                            '/root/.cache/vllm/torch_compile_cache/5f2a9c1e0b/rank_0_0/backbone/inductor_cache/7p/c7pq2gmvn3bx7w5c4tz2hyc6k4q3x2vcd7mxe3yrj5ozkd5n2jqa.py')}
