"""A 2-block GPT: token and position embeddings, pre-LayerNorm blocks with
causal multi-head self-attention (a registered tril mask) and a GELU MLP,
next-token cross-entropy (AdamW)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, CTX, WIDTH, HEADS = 96, 16, 32, 4


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.register_buffer("mask", torch.tril(torch.ones(CTX, CTX, dtype=torch.bool)),
                             persistent=False)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(WIDTH, dim=2)
        q = q.view(b, t, HEADS, c // HEADS).transpose(1, 2)
        k = k.view(b, t, HEADS, c // HEADS).transpose(1, 2)
        v = v.view(b, t, HEADS, c // HEADS).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // HEADS)
        att = att.masked_fill(~self.mask[:t, :t], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(WIDTH)
        self.attn = Attention()
        self.ln2 = nn.LayerNorm(WIDTH)
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(),
                                 nn.Linear(4 * WIDTH, WIDTH))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, WIDTH)
        self.pos = nn.Embedding(CTX, WIDTH)
        self.blocks = nn.Sequential(Block(), Block())
        self.ln = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        pos = torch.arange(t, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        x = self.ln(self.blocks(x))
        return self.head(x)


def model():
    return GPT()


def example_batch():
    tokens = torch.randint(0, VOCAB, (4, CTX + 1))
    return tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()


def loss_fn():
    def next_token_loss(logits, targets):
        return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))
    return next_token_loss


def optimizer(params):
    return torch.optim.AdamW(params, lr=3e-3, weight_decay=0.1)
