"""The baselines of bench section (h), each run as its own process (`python this.py MODE
TEXTS.json`), so its CPU time is the whole job: load MiniLM and encode.

    whole     the folder's whole text, encoded once in pieces of at most 254 word pieces
              (+ [CLS] and [SEP] = the encoder's 256): the least work that loses no text
    agent     what a CLI agent that reloads MiniLM per command does: each file cut into
              chunks of CHUNK_CHARS characters, each encoded with the library's truncation
              at 256 word pieces (whatever a chunk holds past that is never seen)

TEXTS.json is a list of the files' extracted texts (extracted beforehand by the bench: the
baselines time the model, not the parsers). Prints one JSON line: pieces, word pieces
encoded, word pieces of text.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

PIECE = 254  # word pieces of text per piece (+ the two special tokens)
CHUNK_CHARS = 2000  # a common default chunk size in such tools
BATCH = 16


def encode_whole(model: Any, ids: list[list[int]]) -> tuple[int, int]:
    """Encode token ids (one list per document, no special tokens) in pieces of ≤ PIECE
    word pieces, BATCH pieces per forward pass; returns (pieces, word pieces encoded)."""
    import torch

    tokenizer = model.tokenizer
    pieces = [i[s : s + PIECE] for i in ids for s in range(0, len(i), PIECE)]
    with torch.inference_mode():
        for start in range(0, len(pieces), BATCH):
            batch = pieces[start : start + BATCH]
            width = max(len(p) for p in batch) + 2
            rows = [[tokenizer.cls_token_id, *p, tokenizer.sep_token_id] for p in batch]
            input_ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
            mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
            model({"input_ids": input_ids, "attention_mask": mask,
                   "token_type_ids": torch.zeros_like(input_ids)})  # fmt: skip
    return len(pieces), sum(len(p) + 2 for p in pieces)


def main(mode: str, texts_file: str) -> None:
    from sentence_transformers import SentenceTransformer

    from ragd.index.embedder import model_path

    texts: list[str] = json.loads(Path(texts_file).read_text())
    model = SentenceTransformer(str(model_path()), device="cpu")
    tokenizer = model.tokenizer
    ids = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    text_pieces = sum(len(i) for i in ids)
    if mode == "whole":
        count, encoded = encode_whole(model, ids)
    else:
        chunks = [t[s : s + CHUNK_CHARS] for t in texts for s in range(0, len(t), CHUNK_CHARS)]
        lengths = [len(tokenizer(c)["input_ids"]) for c in chunks]
        encoded = sum(min(n, 256) for n in lengths)
        model.encode(chunks, batch_size=BATCH)
        count = len(chunks)
    print(json.dumps({"pieces": count, "encoded": encoded, "text_word_pieces": text_pieces}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
