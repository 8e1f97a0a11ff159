"""all-MiniLM-L6-v2's forward pass in plain torch, read straight from the model package.

The model is a 6-layer BERT encoder followed by mean pooling over the real (unpadded)
word pieces; ragd L2-normalises the result. Written out here (≈ 60 lines of tensor
operations over the package's `model.safetensors`) so a daemon start imports torch,
safetensors and tokenizers only: sentence-transformers and transformers add several CPU
seconds of imports (scikit-learn, SciPy, torch.distributed) to every start for the same
arithmetic (docs/performance.md, start → READY). The weights, the tokenizer file and the
operations are the library's, so the vectors agree with its `encode` to float rounding
(tests/component/test_minilm_forward.py compares them).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from safetensors.torch import load_file
from tokenizers import Tokenizer


@dataclass(frozen=True)
class BertShape:
    layers: int
    heads: int
    eps: float

    @classmethod
    def read(cls, folder: Path) -> BertShape:
        config = json.loads((folder / "config.json").read_text())
        if config.get("hidden_act") != "gelu" or config.get("model_type") != "bert":
            raise ValueError(f"{folder} is not a GELU BERT encoder")
        return cls(
            config["num_hidden_layers"], config["num_attention_heads"], config["layer_norm_eps"]
        )


def load_tokenizer(folder: Path, max_tokens: int | None) -> Tokenizer:
    """The package's fast tokenizer; with `max_tokens`, batches are cut there (special
    tokens included) and padded to their longest text, as the library's `encode` does."""
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    if max_tokens is not None:
        tokenizer.enable_truncation(max_length=max_tokens)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


class MiniLM:
    """The encoder's weights and its forward pass (thread-safe: nothing is mutated)."""

    def __init__(self, folder: Path) -> None:
        self.shape = BertShape.read(folder)
        self.w: dict[str, torch.Tensor] = load_file(str(folder / "model.safetensors"))

    @staticmethod
    def tokenize(tokenizer: Tokenizer, texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """Word-piece ids and the attention mask (1 = a real word piece), padded."""
        batch = tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in batch], dtype=torch.long)
        mask = torch.tensor([e.attention_mask for e in batch], dtype=torch.long)
        return ids, mask

    def encode(self, tokenizer: Tokenizer, texts: list[str]) -> torch.Tensor:
        """Mean-pooled sentence embeddings (not normalised), shape (len(texts), 384)."""
        return self.pool(*self.tokenize(tokenizer, texts))

    def pool(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The mean of the last layer over the real word pieces of each text."""
        hidden = self.forward(ids, mask)
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        summed = (hidden * weights).sum(dim=1)
        return summed / weights.sum(dim=1).clamp(min=1e-9)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        w = self.w
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        x = (
            F.embedding(ids, w["embeddings.word_embeddings.weight"])
            + F.embedding(torch.zeros_like(ids), w["embeddings.token_type_embeddings.weight"])
            + F.embedding(positions, w["embeddings.position_embeddings.weight"])
        )
        x = self._norm(x, "embeddings.LayerNorm")
        # Padding may not be attended to: a boolean mask over the keys, per batch row.
        attend = mask.bool()[:, None, None, :]
        for layer in range(self.shape.layers):
            x = self._layer(x, attend, f"encoder.layer.{layer}.")
        return x

    def _layer(self, x: torch.Tensor, attend: torch.Tensor, p: str) -> torch.Tensor:
        batch, length, width = x.shape
        heads = self.shape.heads

        def split(name: str) -> torch.Tensor:
            y = self._linear(x, p + f"attention.self.{name}")
            return y.view(batch, length, heads, width // heads).transpose(1, 2)

        q, k, v = split("query"), split("key"), split("value")
        scale = 1.0 / math.sqrt(width // heads)
        context = F.scaled_dot_product_attention(q, k, v, attn_mask=attend, scale=scale)
        context = context.transpose(1, 2).reshape(batch, length, width)
        x = self._norm(
            self._linear(context, p + "attention.output.dense") + x,
            p + "attention.output.LayerNorm",
        )
        inner = F.gelu(self._linear(x, p + "intermediate.dense"))
        return self._norm(self._linear(inner, p + "output.dense") + x, p + "output.LayerNorm")

    def _linear(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return F.linear(x, self.w[name + ".weight"], self.w[name + ".bias"])

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        w = self.w
        shape: Any = (x.shape[-1],)
        return F.layer_norm(x, shape, w[name + ".weight"], w[name + ".bias"], self.shape.eps)
