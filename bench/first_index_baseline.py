"""The baselines of bench section (h), each run as its own process (`python this.py MODE
TEXTS.json`), so its CPU time is the whole job: load MiniLM and encode.

    whole     the folder's whole text, encoded once in pieces of at most 254 word pieces
              (+ [CLS] and [SEP] = the encoder's 256): the least work that loses no text
    own       `whole`, with the model loaded and run by ragd's own forward pass
              (ragd.index.minilm: torch, safetensors and tokenizers only) — the same
              encoding without sentence-transformers' imports
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

PIECE = 254  # word pieces of text per piece (+ the two special tokens)
CHUNK_CHARS = 2000  # a common default chunk size in such tools
BATCH = 16


def main(mode: str, texts_file: str) -> None:
    texts: list[str] = json.loads(Path(texts_file).read_text())
    if mode == "own":
        own(texts)
        return
    import torch
    from sentence_transformers import SentenceTransformer

    from ragd.index.embedder import model_path

    model = SentenceTransformer(str(model_path()), device="cpu")
    tokenizer = model.tokenizer
    ids = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    text_pieces = sum(len(i) for i in ids)
    if mode == "whole":
        pieces = [i[s : s + PIECE] for i in ids for s in range(0, len(i), PIECE)]
        encoded = sum(len(p) + 2 for p in pieces)
        with torch.inference_mode():
            for start in range(0, len(pieces), BATCH):
                batch = pieces[start : start + BATCH]
                width = max(len(p) for p in batch) + 2
                rows = [[tokenizer.cls_token_id, *p, tokenizer.sep_token_id] for p in batch]
                input_ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
                mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
                model({"input_ids": input_ids, "attention_mask": mask,
                       "token_type_ids": torch.zeros_like(input_ids)})  # fmt: skip
        count = len(pieces)
    else:
        chunks = [t[s : s + CHUNK_CHARS] for t in texts for s in range(0, len(t), CHUNK_CHARS)]
        lengths = [len(tokenizer(c)["input_ids"]) for c in chunks]
        encoded = sum(min(n, 256) for n in lengths)
        model.encode(chunks, batch_size=BATCH)
        count = len(chunks)
    print(json.dumps({"pieces": count, "encoded": encoded, "text_word_pieces": text_pieces}))


def own(texts: list[str]) -> None:
    """`whole` through ragd's own loader and forward pass."""
    import torch

    from ragd.index.embedder import model_path
    from ragd.index.minilm import MiniLM, load_tokenizer

    model = MiniLM(model_path())
    counter = load_tokenizer(model_path(), None)
    ids = [counter.encode(t, add_special_tokens=False).ids for t in texts]
    pieces = [i[s : s + PIECE] for i in ids for s in range(0, len(i), PIECE)]
    cls, sep = counter.token_to_id("[CLS]"), counter.token_to_id("[SEP]")
    with torch.inference_mode():
        for start in range(0, len(pieces), BATCH):
            rows = [[cls, *p, sep] for p in pieces[start : start + BATCH]]
            width = max(len(r) for r in rows)
            input_ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
            mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
            model.pool(input_ids, mask)
    encoded = sum(len(p) + 2 for p in pieces)
    text_pieces = sum(len(i) for i in ids)
    print(json.dumps({"pieces": len(pieces), "encoded": encoded, "text_word_pieces": text_pieces}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
