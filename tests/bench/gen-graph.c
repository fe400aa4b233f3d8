/*
 * Generate a synthetic graph JSON of about N nodes for the benchmarks:
 * stacked transformer blocks (post-grad style aten ops) over a symbolic batch
 * s0 and sequence length s1, with recorded vals, strides and stack traces.
 * usage: gen-graph N [--shared] > graph.json
 *   --shared: every block uses the same six weight placeholders (as a traced model whose
 *   blocks share weights: every piece of a split takes them), so piece inputs fan out widely
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define D 512
#define F 2048

static unsigned long n_emitted;

static void val(const char *shape, const char *stride)
{
    printf(", \"val\": {\"dtype\": \"float32\", \"shape\": [%s], \"stride\": [%s], "
           "\"storage_offset\": 0, \"device\": \"cuda:0\", \"requires_grad\": false}",
           shape, stride);
}

static const char *source_line(int line)
{
    static const char *const src[] = {
        "q = self.q_proj(hidden_states)",
        "k = self.k_proj(hidden_states)",
        "v = self.v_proj(hidden_states)",
        "q = q.view(bsz, seq_len, self.hidden_size)",
        "k = k.view(bsz, seq_len, self.hidden_size)",
        "v = v.view(bsz, seq_len, self.hidden_size)",
        "scores = torch.bmm(q, k.transpose(1, 2))",
        "scores = torch.bmm(q, k.transpose(1, 2))",
        "probs = torch.softmax(scores, dim=-1)",
        "attn = torch.bmm(probs, v)",
        "attn = attn.reshape(-1, self.hidden_size)",
        "out = self.o_proj(attn)",
        "hidden_states = residual + out",
        "h = self.up_proj(hidden_states)",
        "h = torch.nn.functional.gelu(h)",
        "h = self.down_proj(h)",
        "hidden_states = hidden_states + h",
    };
    return src[(line - 10) % (int)(sizeof(src) / sizeof(src[0]))];
}

static void node(const char *name, long blk, const char *target, const char *args,
                 const char *shape, const char *stride, int line)
{
    printf(",\n  {\"name\": \"%s_%ld\", \"op\": \"call_function\", \"target\": \"%s\", "
           "\"args\": [%s], \"kwargs\": {}", name, blk, target, args);
    val(shape, stride);
    /* two frames, as Dynamo records them for a module inside a model */
    printf(", \"stack_trace\": \"  File \\\"/home/user/project/models/transformer.py\\\", line "
           "412, in forward\\n    hidden_states = block(hidden_states, attention_mask=mask, "
           "position_ids=position_ids)\\n  File \\\"/home/user/project/models/transformer.py\\\", "
           "line %d, in forward\\n    %s\\n\", \"module_path\": \"model.layers.%ld\", "
           "\"module_type\": \"models.transformer.DecoderBlock\"}",
           line, source_line(line), blk);
    n_emitted++;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int shared = argc > 2 && strcmp(argv[2], "--shared") == 0;
    long blocks = n / (shared ? 17 : 23) > 0 ? n / (shared ? 17 : 23) : 1;
    static const char *const w[6] = {"wq", "wk", "wv", "wo", "w1", "w2"};
    char a[512], b[512];

    printf("{\"format\": \"cgscope.graph\", \"version\": 1, \"name\": \"synthetic-%ld\",\n"
           " \"producer\": {\"tool\": \"cgscope-bench\", \"version\": \"1\", \"stage\": "
           "\"post_grad\", \"is_inference\": true, \"is_backward\": false},\n"
           " \"symbols\": {\"s0\": {\"hint\": 8, \"min\": 2, \"max\": null}, \"s1\": {\"hint\": "
           "128, \"min\": 2, \"max\": 4096}},\n \"nodes\": [\n", n);
    printf("  {\"name\": \"s0\", \"op\": \"placeholder\", \"target\": \"s0\", \"args\": [], "
           "\"kwargs\": {}, \"val\": {\"symint\": \"s0\", \"hint\": 8}},\n");
    printf("  {\"name\": \"s1\", \"op\": \"placeholder\", \"target\": \"s1\", \"args\": [], "
           "\"kwargs\": {}, \"val\": {\"symint\": \"s1\", \"hint\": 128}},\n");
    printf("  {\"name\": \"x_0\", \"op\": \"placeholder\", \"target\": \"x\", \"args\": [], "
           "\"kwargs\": {}");
    val("\"s0*s1\", 512", "512, 1");
    printf("}");
    for (long i = 0; i < (shared ? 1 : blocks); i++)
        for (int k = 0; k < 6; k++) {
            int rows = k == 5 ? F : D, cols = k == 4 ? F : D;
            printf(",\n  {\"name\": \"%s_%ld\", \"op\": \"placeholder\", \"target\": \"%s_%ld\", "
                   "\"args\": [], \"kwargs\": {}", w[k], i, w[k], i);
            snprintf(a, sizeof(a), "%d, %d", rows, cols);
            snprintf(b, sizeof(b), "%d, 1", cols);
            val(a, b);
            printf("}");
        }
    for (long i = 0; i < blocks; i++) {
        char x[64];
        long wi = shared ? 0 : i; /* the block's weights */
        snprintf(x, sizeof(x), "{\"node\": \"x_%ld\"}", i);
        snprintf(a, sizeof(a), "%s, {\"node\": \"wq_%ld\"}", x, wi);
        node("q", i, "aten.mm.default", a, "\"s0*s1\", 512", "512, 1", 10);
        snprintf(a, sizeof(a), "%s, {\"node\": \"wk_%ld\"}", x, wi);
        node("k", i, "aten.mm.default", a, "\"s0*s1\", 512", "512, 1", 11);
        snprintf(a, sizeof(a), "%s, {\"node\": \"wv_%ld\"}", x, wi);
        node("v", i, "aten.mm.default", a, "\"s0*s1\", 512", "512, 1", 12);
        snprintf(a, sizeof(a), "{\"node\": \"q_%ld\"}, [{\"node\": \"s0\"}, {\"node\": \"s1\"}, 512]", i);
        node("qv", i, "aten.view.default", a, "\"s0\", \"s1\", 512", "\"512*s1\", 512, 1", 13);
        snprintf(a, sizeof(a), "{\"node\": \"k_%ld\"}, [{\"node\": \"s0\"}, {\"node\": \"s1\"}, 512]", i);
        node("kv", i, "aten.view.default", a, "\"s0\", \"s1\", 512", "\"512*s1\", 512, 1", 14);
        snprintf(a, sizeof(a), "{\"node\": \"v_%ld\"}, [{\"node\": \"s0\"}, {\"node\": \"s1\"}, 512]", i);
        node("vv", i, "aten.view.default", a, "\"s0\", \"s1\", 512", "\"512*s1\", 512, 1", 15);
        snprintf(a, sizeof(a), "{\"node\": \"kv_%ld\"}, [0, 2, 1]", i);
        node("kt", i, "aten.permute.default", a, "\"s0\", 512, \"s1\"", "\"512*s1\", 1, 512", 16);
        snprintf(a, sizeof(a), "{\"node\": \"qv_%ld\"}, {\"node\": \"kt_%ld\"}", i, i);
        node("sc", i, "aten.bmm.default", a, "\"s0\", \"s1\", \"s1\"", "\"s1**2\", \"s1\", 1", 17);
        snprintf(a, sizeof(a), "{\"node\": \"sc_%ld\"}, -1, false", i);
        node("sm", i, "aten._softmax.default", a, "\"s0\", \"s1\", \"s1\"", "\"s1**2\", \"s1\", 1", 18);
        snprintf(a, sizeof(a), "{\"node\": \"sm_%ld\"}, {\"node\": \"vv_%ld\"}", i, i);
        node("av", i, "aten.bmm.default", a, "\"s0\", \"s1\", 512", "\"512*s1\", 512, 1", 19);
        snprintf(a, sizeof(a), "{\"node\": \"av_%ld\"}, [\"s0*s1\", 512]", i);
        snprintf(a, sizeof(a), "{\"node\": \"av_%ld\"}, [-1, 512]", i);
        node("a2", i, "aten.view.default", a, "\"s0*s1\", 512", "512, 1", 20);
        snprintf(a, sizeof(a), "{\"node\": \"a2_%ld\"}, {\"node\": \"wo_%ld\"}", i, wi);
        node("o", i, "aten.mm.default", a, "\"s0*s1\", 512", "512, 1", 21);
        snprintf(a, sizeof(a), "%s, {\"node\": \"o_%ld\"}", x, i);
        node("x1", i, "aten.add.Tensor", a, "\"s0*s1\", 512", "512, 1", 22);
        snprintf(a, sizeof(a), "{\"node\": \"x1_%ld\"}, {\"node\": \"w1_%ld\"}", i, wi);
        node("h", i, "aten.mm.default", a, "\"s0*s1\", 2048", "2048, 1", 23);
        snprintf(a, sizeof(a), "{\"node\": \"h_%ld\"}", i);
        node("g", i, "aten.gelu.default", a, "\"s0*s1\", 2048", "2048, 1", 24);
        snprintf(a, sizeof(a), "{\"node\": \"g_%ld\"}, {\"node\": \"w2_%ld\"}", i, wi);
        node("h2", i, "aten.mm.default", a, "\"s0*s1\", 512", "512, 1", 25);
        snprintf(a, sizeof(a), "{\"node\": \"x1_%ld\"}, {\"node\": \"h2_%ld\"}", i, i);
        /* the block's output is the next block's input */
        printf(",\n  {\"name\": \"x_%ld\", \"op\": \"call_function\", \"target\": "
               "\"aten.add.Tensor\", \"args\": [%s], \"kwargs\": {}", i + 1, a);
        val("\"s0*s1\", 512", "512, 1");
        printf("}");
        n_emitted++;
    }
    printf(",\n  {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": "
           "[[{\"node\": \"x_%ld\"}]], \"kwargs\": {}}\n ]\n}\n", blocks);
    (void)n_emitted;
    return 0;
}
