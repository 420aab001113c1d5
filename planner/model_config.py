"""A model from a local Hugging Face config.json (docs/method.md §8): the Catalog's model fields, offline.

Nothing is downloaded. The file is untrusted: only a regular file of at most 1 MB is read, opened without blocking
(a named pipe cannot hang the reader), and every problem is one line, "file:line: field: what is wrong", collected
into one ConfigFileError; a value is quoted to at most 80 characters. A `model.safetensors.index.json` beside the
file, when present, has its metadata.total_size compared with Ψ·(bytes of torch_dtype); that comparison is a note,
never an error.

`read_config` gives a ConfigModel: `fields` (a plain dict of the Catalog's model fields), `defaults` (the fields
taken by default), `notes` (why, and anything else worth knowing), Ψ, Ψ_active and KV bytes per token;
`catalog_entry_yaml` renders it as an entry to paste under `catalog.models` in a scenario file.
"""

from __future__ import annotations

import json
import math
import os
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.files import read_bytes, utf8_text
from planner.model import fields as declared
from planner.model.counts import active_params, kv_bytes_per_token, routed_params, total_params

MAX_BYTES = 1024 * 1024  # a config.json is a few kB; DeepSeek-V3's is 1.7 kB
MAX_INDEX_BYTES = 64 * 1024 * 1024  # a safetensors index lists every tensor: a few MB for the largest models
MAX_DEPTH = 20  # real configs nest 3 or 4 levels (quantization_config.config_groups…)
QUOTE_CHARACTERS = 80
CHECKPOINT_TOLERANCE = 0.02  # docs/method.md §8: a difference over 2 % is reported
MAX_PARAMS = declared.named(declared.MODEL)["params"].le  # the scenario's bound on Ψ
INDEX_NAME = "model.safetensors.index.json"

# The Catalog's model fields a config.json gives, in the order an entry lists them, and their config.json keys
CONFIG = {f.key: f.config for f in declared.MODEL if f.config != declared.NOT_IN_CONFIG}
FIELDS = tuple(CONFIG)
MOE_FIELDS = ("experts", "experts_per_token", "expert_ffn", "shared_expert_ffn", "moe_layers")
MLA_FIELDS = ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
# Upper bounds: the scenario's own (one declaration), and a config-only count of shared experts
LIMITS = {**declared.limits(declared.MODEL), "n_shared_experts": 10**4}
GATED_ACTIVATIONS = {"silu", "swiglu", "swish"}  # SwiGLU FFNs: Llama, Mistral, Qwen, DeepSeek, gpt-oss
DTYPE_BYTES = {"float32": 4, "float": 4, "float16": 2, "half": 2, "bfloat16": 2, "float8_e4m3fn": 1,
               "float8_e5m2": 1, "float64": 8}
QUANTISED_BITS = {"fp8": 8}  # quant_method → bits per weight when the whole checkpoint is at one width
_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\],:]')  # JSON's strings and punctuation; numbers are skipped
_CONTROL = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


class ConfigFileError(Exception):
    """A config.json that cannot be read as a model; `problems` holds one line per problem: file:line: field: what."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class ConfigModel:
    """One config.json read as a Catalog model."""

    source: str  # the file, as given
    id: str  # the Catalog id: the folder's name (or _name_or_path), slugged
    fields: dict  # the Catalog's model fields (FIELDS), plain ints and bools
    defaults: list[str] = field(default_factory=list)  # the fields taken by default
    notes: list[str] = field(default_factory=list)  # why each default, and what else was assumed or found
    params: int = 0  # Ψ
    active_params: int = 0  # Ψ_active
    routed_params: int = 0  # Ψ_routed
    kv_bytes_per_token: int = 0  # BF16 keys and values (or MLA's latent)
    checkpoint: dict | None = None  # the safetensors index comparison, when an index is beside the file


def show(value: Any) -> str:
    """A value as JSON, at most 80 characters of it, then "… (N characters)"."""
    if isinstance(value, LongNumber):
        return f"a whole number of {value.digits:,} digits"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return _cap(escaped(text))


def _cap(text: str) -> str:
    return f"{text[:QUOTE_CHARACTERS]}… ({len(text):,} characters)" if len(text) > QUOTE_CHARACTERS else text


def escaped(text: str) -> str:
    """Text that any UTF-8 stream prints: a lone surrogate (JSON's "\udc80", or a file name's byte that is not
    UTF-8) as its escape, \udc80, where printing it raw fails."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# Reading the file --------------------------------------------------------------------------------------------
def _read_bytes(path: Path, source: str, limit: int, what: str) -> bytes:
    """The file's bytes: a regular file, opened without blocking so a named pipe cannot hang, at most `limit`."""
    return read_bytes(path, source, limit=limit, regular=what, at_most=what, error=ConfigFileError)


class LongNumber(float):
    """A whole number of more than 400 digits, kept as infinity (refused where read) with its digit count."""

    digits: int

    def __new__(cls, text: str) -> LongNumber:
        number = super().__new__(cls, math.inf if not text.startswith("-") else -math.inf)
        number.digits = len(text.lstrip("-"))
        return number


def _big_int(text: str) -> int | float:
    return int(text) if len(text) <= 400 else LongNumber(text)  # int() refuses 4,300 digits anyway


def _decode_json(data: bytes, source: str, what: str) -> tuple[str, Any]:
    """UTF-8 JSON (a byte-order mark is allowed); NaN, Infinity and 1e400 are kept and refused where read."""
    text = utf8_text(data, source, rule=f"{what} is UTF-8 JSON", error=ConfigFileError).removeprefix("\ufeff")
    try:
        return text, json.loads(text, parse_int=_big_int, parse_constant=float)
    except json.JSONDecodeError as exc:
        raise ConfigFileError([f"{source}:{exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})"]) from None
    except RecursionError:
        raise ConfigFileError([f"{source}: nested deeper than {MAX_DEPTH} levels: {what} nests at most"
                               f" {MAX_DEPTH} levels"]) from None


def _key_lines(text: str, source: str) -> dict[tuple, int]:
    """Each object key's 1-based line, by key path, from valid JSON; a key given twice or nesting deeper than
    MAX_DEPTH is refused. An explicit stack, no recursion."""
    lines: dict[tuple, int] = {}
    problems: list[str] = []
    stack: list[list] = []  # [is_object, path, current key or index, expecting a key]
    line, last = 1, 0
    for match in _TOKENS.finditer(text):
        token, start = match.group(), match.start()
        line += text.count("\n", last, start)
        last = start
        top = stack[-1] if stack else None
        if token[0] == '"':
            if top is not None and top[0] and top[3]:
                key = json.loads(token)
                path = top[1] + (key,)
                if path in lines:
                    problems.append(f"{source}:{line}: {_label(path)}: key given twice: give each key once")
                lines[path] = line
                top[2], top[3] = key, False
        elif token in "{[":
            path = () if top is None else top[1] + (top[2],)
            if len(stack) >= MAX_DEPTH:
                raise ConfigFileError(problems + [f"{source}:{line}: {_label(path)}: nested deeper than {MAX_DEPTH}"
                                                  f" levels: a config.json nests at most {MAX_DEPTH} levels"])
            stack.append([token == "{", path, None if token == "{" else 0, token == "{"])
        elif token in "}]":
            stack.pop()
        elif token == "," and top is not None:
            if top[0]:
                top[3] = True
            else:
                top[2] += 1
    if problems:
        raise ConfigFileError(problems)
    return lines


def _line_of(problem: str) -> int:
    """A problem's line, for listing problems in file order; one without a line (a missing field) goes last."""
    match = re.match(r".*?:(\d+): ", problem)
    return int(match.group(1)) if match else 1 << 60


def _label(path: tuple) -> str:
    """A key path as text.parts; a key that is not a plain name (a newline, 81 characters) is quoted as show does."""
    parts = [str(p) if isinstance(p, int) or re.fullmatch(r"[\w-]{1,80}", p) else show(p) for p in path]
    return ".".join(parts) or "(top level)"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "a number"


# The fields, as docs/method.md §8 reads them ----------------------------------------------------------------------
class _Fields:
    """Looks fields up (text_config first, then the top level), checks each value and notes every default."""

    def __init__(self, source: str, data: dict, lines: dict[tuple, int]):
        self.source, self.top, self.lines = source, data, lines
        self.problems: list[str] = []
        self.defaults: list[str] = []
        self.notes: list[str] = []
        text = data.get("text_config")
        self.text = text if isinstance(text, dict) else None
        if text is not None and self.text is None:
            self.problem(("text_config",), f"{show(text)} is {_kind(text)}: text_config holds the language model's"
                                           " fields as an object")
        elif self.text is not None:
            self.notes.append("the language model's fields are read from text_config")

    # looking up and reporting
    def lookup(self, name: str) -> tuple[tuple, Any] | None:
        """(path, value) of a key, text_config first; a null value is returned as None."""
        if self.text is not None and name in self.text:
            return ("text_config", name), self.text[name]
        if name in self.top:
            return (name,), self.top[name]
        return None

    def find(self, *names: str) -> tuple[tuple, Any] | None:
        """The first of the aliases given with a value that is not null."""
        for name in names:
            found = self.lookup(name)
            if found is not None and found[1] is not None:
                return found
        return None

    def where(self, path: tuple) -> str:
        for end in range(len(path), 0, -1):
            if path[:end] in self.lines:
                return f"{self.source}:{self.lines[path[:end]]}"
        return self.source

    def problem(self, path: tuple, what: str) -> None:
        self.problems.append(f"{self.where(path)}: {_label(path)}: {what}")

    def missing(self, names: tuple[str, ...], what: str) -> None:
        path = (("text_config",) if self.text is not None else ()) + (names[0],)
        also = f" (nor {', '.join(names[1:])})" if len(names) > 1 else ""
        self.problems.append(f"{self.source}: {_label(path)}: missing{also}: {what}")

    def default(self, name: str, why: str) -> None:
        self.defaults.append(name)
        self.notes.append(f"{name}: {why}")

    # checking values
    def whole(self, found: tuple[tuple, Any], what: str, low: int, high: int) -> int | None:
        """The value as a whole number in [low, high], or None with a problem noted."""
        path, value = found
        rule = f"{what} is a whole number from {low:,} to {high:,}"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.problem(path, f"{show(value)} is {_kind(value)}: {rule}")
            return None
        if isinstance(value, float):
            if isinstance(value, LongNumber):
                self.problem(path, f"{show(value)} is out of range: {rule}")
                return None
            if not math.isfinite(value):
                self.problem(path, f"{show(value)} is not a finite number: {rule}")
                return None
            if not value.is_integer():
                self.problem(path, f"{show(value)} is not a whole number: {rule}")
                return None
        if not low <= value <= high:
            self.problem(path, f"{_cap(f'{int(value):,}')} is out of range: {rule}")
            return None
        return int(value)

    def number(self, names: tuple[str, ...], what: str, low: int, high: int, required: bool = False) -> int | None:
        found = self.find(*names)
        if found is None:
            if required:
                self.missing(names, f"{what} is required")
            return None
        return self.whole(found, what, low, high)

    def flag(self, name: str, what: str) -> bool | None:
        found = self.find(name)
        if found is None:
            return None
        if not isinstance(found[1], bool):
            self.problem(found[0], f"{show(found[1])} is {_kind(found[1])}: {what} is true or false")
            return None
        return found[1]

    def text_value(self, *names: str) -> tuple[tuple, str] | None:
        found = self.find(*names)
        if found is None:
            return None
        if not isinstance(found[1], str):
            self.problem(found[0], f"{show(found[1])} is {_kind(found[1])}: {found[0][-1]} is text")
            return None
        return found

    def layer_list(self, name: str, layers: int | None) -> list[int] | None:
        """A list of layer indices, each from 0 to L − 1, given once."""
        found = self.find(name)
        if found is None:
            return None
        path, value = found
        if not isinstance(value, list):
            self.problem(path, f"{show(value)} is {_kind(value)}: {name} is a list of layer indices")
            return None
        high = (layers - 1) if layers else LIMITS["layers"]
        indices = [self.whole((path + (i,), item), f"each of {name}", 0, high) for i, item in enumerate(value)]
        if any(i is None for i in indices):
            return None
        if len(set(indices)) != len(indices):
            self.problem(path, f"{show(value)} names a layer twice: {name} gives each layer once")
            return None
        return indices

    # the model
    def read(self) -> dict:
        L = self.number(CONFIG["layers"], "the number of layers", 1, LIMITS["layers"],
                        required=True)
        h = self.number(CONFIG["hidden"], "the hidden size", 1, LIMITS["hidden"], required=True)
        a = self.number(CONFIG["heads"], "the number of attention heads", 1, LIMITS["heads"],
                        required=True)
        V = self.number(CONFIG["vocab"], "the vocabulary size", 1, LIMITS["vocab"], required=True)
        model: dict[str, Any] = {"layers": L, "hidden": h, "heads": a, "vocab": V}
        model.update(self.attention(h, a))
        model.update(self.ffn(h, L))
        tied = self.flag("tie_word_embeddings", "tie_word_embeddings")
        if tied is None and self.find("tie_word_embeddings") is None:
            tied = False
            self.default("tied_embeddings", "tie_word_embeddings is not given: untied (docs/method.md §8); transformers"
                                            " ties a model whose config omits it (GPT-2): set tied_embeddings: true"
                                            " if its output layer is its embedding")
        model["tied_embeddings"] = tied
        model.update(self.experts(L))
        return model

    def attention(self, h: int | None, a: int | None) -> dict:
        r_kv = self.number(("kv_lora_rank",), "kv_lora_rank", 0, LIMITS["kv_lora_rank"])
        if r_kv:
            return self.latent_attention(a, r_kv)
        zero = {name: 0 for name in MLA_FIELDS}
        kv = self.number(("num_key_value_heads",), "num_key_value_heads", 1, LIMITS["kv_heads"])
        if kv is None and self.find("num_key_value_heads") is None:
            multi_query = self.flag("multi_query", "multi_query")
            if multi_query:
                kv = 1
                self.notes.append("kv_heads: 1, from multi_query: true")
            elif multi_query is None and self.find("multi_query") is not None:
                kv = None  # refused above
            else:
                kv = a
                if a is not None:
                    self.default("kv_heads", f"num_key_value_heads is not given: the heads, {a:,} (multi-head"
                                             " attention)")
        if kv is not None and a is not None and (kv > a or a % kv):
            found = self.find("num_key_value_heads") or self.find("multi_query")
            self.problem(found[0], f"{kv:,} key-value heads do not divide num_attention_heads {a:,}: grouped-query"
                                   " attention shares each key-value head among a whole number of heads")
            kv = None
        hd = self.number(("head_dim",), "head_dim", 1, LIMITS["head_dim"])
        if hd is None and self.find("head_dim") is None and h is not None and a is not None:
            if h % a:
                self.missing(("head_dim",), f"hidden size {h:,} is not divisible by num_attention_heads {a:,}, so"
                                            " the head dimension must be given")
            else:
                hd = h // a
                self.default("head_dim", f"not given: hidden size / heads = {h:,} / {a:,} = {hd:,}")
        return {"kv_heads": kv, "head_dim": hd, **zero}

    def latent_attention(self, a: int | None, r_kv: int) -> dict:
        """Multi-head latent attention (DeepSeek): num_key_value_heads and head_dim do not describe its KV cache."""
        q_found = self.lookup("q_lora_rank")
        if q_found is not None and q_found[1] is None:
            r_q = 0
            self.notes.append("q_lora_rank: null, so 0 (full-rank query projection)")
        elif q_found is None:
            r_q = 0
            self.default("q_lora_rank", "not given: 0 (full-rank query projection)")
        else:
            r_q = self.whole(q_found, "q_lora_rank", 0, LIMITS["q_lora_rank"])
        dims = {name: self.number((name,), name, 1, LIMITS[name], required=True)
                for name in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")}
        head_dim = (dims["qk_nope_head_dim"] + dims["qk_rope_head_dim"]
                    if None not in (dims["qk_nope_head_dim"], dims["qk_rope_head_dim"]) else None)
        self.notes.append("multi-head latent attention (kv_lora_rank > 0): num_key_value_heads and head_dim are not"
                          " read; kv_heads = heads and head_dim = qk_nope_head_dim + qk_rope_head_dim stand in, and"
                          " the KV cache per token is (kv_lora_rank + qk_rope_head_dim)·2 bytes per layer")
        return {"kv_heads": a, "head_dim": head_dim, "kv_lora_rank": r_kv, "q_lora_rank": r_q, **dims}

    def is_llama4(self) -> bool:
        model_type = (self.text or {}).get("model_type", self.top.get("model_type"))
        return (isinstance(model_type, str) and model_type.startswith("llama4")) or \
            self.find("intermediate_size_mlp") is not None

    def ffn(self, h: int | None, L: int | None) -> dict:
        model: dict[str, Any] = {}
        activation = self.text_value("hidden_act", "activation_function")
        if activation is None and self.find("hidden_act", "activation_function") is None:
            model["gated"] = True
            self.default("gated", "hidden_act is not given: SwiGLU (3·h·F) assumed")
        elif activation is not None:
            name = activation[1].lower()
            model["gated"] = name in GATED_ACTIVATIONS
            if not model["gated"] and "gelu" not in name:
                self.notes.append(f"gated: {_label(activation[0])} {show(activation[1])} is neither silu nor gelu:"
                                  " taken as an ungated FFN (2·h·F)")
        else:
            model["gated"] = None
        names = ("intermediate_size_mlp", "intermediate_size", "n_inner")
        found = self.find(*names)
        if found is not None:
            model["ffn"] = self.whole(found, f"the FFN size ({found[0][-1]})", 1, LIMITS["ffn"])
        elif h is not None:
            model["ffn"] = 4 * h
            self.default("ffn", f"intermediate_size is not given: 4 × hidden size = {4 * h:,}")
        else:
            model["ffn"] = None  # the hidden size is missing: already a problem
        return model

    def experts(self, L: int | None) -> dict:
        E = self.number(CONFIG["experts"], "the number of routed experts", 0,
                        LIMITS["experts"])
        if not E:  # dense (absent or 0), or refused above (None)
            return {"experts": E or 0, "experts_per_token": 0, "expert_ffn": 0, "shared_expert_ffn": 0,
                    "moe_layers": 0}
        k = self.number(CONFIG["experts_per_token"], "the experts per token", 1, min(E, LIMITS["experts_per_token"]),
                        required=True)
        moe_ffn = self.number(("moe_intermediate_size",), "moe_intermediate_size", 1, LIMITS["expert_ffn"])
        if moe_ffn is None and self.find("moe_intermediate_size") is None:
            found = self.find("intermediate_size")
            expert_ffn = self.whole(found, "the expert FFN size (intermediate_size)", 1, LIMITS["expert_ffn"]) \
                if found is not None else None
            if found is None:
                self.missing(("moe_intermediate_size", "intermediate_size"), "a mixture-of-experts model needs its"
                                                                             " expert FFN size")
        else:
            expert_ffn = moe_ffn
        return {"experts": E, "experts_per_token": k, "expert_ffn": expert_ffn,
                "shared_expert_ffn": self.shared_experts(moe_ffn), "moe_layers": self.moe_layers(L)}

    def shared_experts(self, moe_ffn: int | None) -> int | None:
        if self.find("n_shared_experts") is not None:  # DeepSeek
            n = self.number(("n_shared_experts",), "n_shared_experts", 0, LIMITS["n_shared_experts"])
            if n is None:
                return None
            if n and moe_ffn is None:
                self.missing(("moe_intermediate_size",), "n_shared_experts needs the experts' size")
                return None
            return n * (moe_ffn or 0)
        if self.find("shared_expert_intermediate_size") is not None:  # Qwen2-MoE
            return self.number(("shared_expert_intermediate_size",), "shared_expert_intermediate_size", 0,
                               LIMITS["shared_expert_ffn"])
        if self.is_llama4():  # one shared expert of the routed experts' size
            size = self.number(("intermediate_size",), "intermediate_size", 1, LIMITS["expert_ffn"], required=True)
            if size is not None:
                self.notes.append(f"shared_expert_ffn: Llama 4's one shared expert, intermediate_size = {size:,}")
            return size
        self.default("shared_expert_ffn", "no shared experts given (n_shared_experts, shared_expert_intermediate_size):"
                                          " 0")
        return 0

    def moe_layers(self, L: int | None) -> int | None:
        if L is None:
            return None
        if self.find("first_k_dense_replace") is not None:  # DeepSeek: the first k layers are dense
            first = self.number(("first_k_dense_replace",), "first_k_dense_replace", 0, L)
            freq = self.number(("moe_layer_freq",), "moe_layer_freq", 1, L) or 1
            if first is None:
                return None
            return sum(1 for i in range(L) if i >= first and i % freq == 0)
        if self.find("decoder_sparse_step") is not None or self.find("mlp_only_layers") is not None:  # Qwen
            step = self.number(("decoder_sparse_step",), "decoder_sparse_step", 1, L)
            step = 1 if step is None and self.find("decoder_sparse_step") is None else step
            dense = self.layer_list("mlp_only_layers", L)
            dense = [] if dense is None and self.find("mlp_only_layers") is None else dense
            if step is None or dense is None:
                return None
            return sum(1 for i in range(L) if i not in set(dense) and (i + 1) % step == 0)
        listed = self.find("moe_layers")  # Llama 4's own list, which transformers prefers to the step
        step_found = self.find("interleave_moe_layer_step")
        step = self.number(("interleave_moe_layer_step",), "interleave_moe_layer_step", 1, L) if step_found else None
        if listed is not None:
            indices = self.layer_list("moe_layers", L)
            if indices is None:
                return None
            if step and len(indices) != len(range(step - 1, L, step)):
                self.notes.append(f"moe_layers lists {len(indices)} layers where interleave_moe_layer_step {step}"
                                  f" gives {len(range(step - 1, L, step))}: the list is used, as transformers does")
            return len(indices)
        if step_found is not None:  # Llama 4: every step-th layer, from layer step − 1
            return None if step is None else len(range(step - 1, L, step))
        self.default("moe_layers", f"no layer schedule given: every layer, {L:,}")
        return L

    def dtype(self) -> tuple[Any, int | None]:
        """torch_dtype (dtype in newer files) and its bytes per value; only the checkpoint comparison reads it."""
        found = self.find("torch_dtype", "dtype")
        if found is None:
            return None, None
        return found[1], DTYPE_BYTES.get(found[1].lower()) if isinstance(found[1], str) else None

    def quantisation(self) -> dict | None:
        found = self.find("quantization_config")
        return found[1] if found is not None and isinstance(found[1], dict) else None


# The model ---------------------------------------------------------------------------------------------------
def read_config(path: str | Path) -> ConfigModel:
    """A local config.json as a Catalog model (docs/method.md §8); ConfigFileError lists every problem found."""
    path = Path(path)
    source = str(path)
    text, data = _decode_json(_read_bytes(path, source, MAX_BYTES, "a config.json"), source, "a config.json")
    if not isinstance(data, dict):
        raise ConfigFileError([f"{source}:1: the top level is {_kind(data)}: a config.json holds one object, {{…}}"])
    reader = _Fields(source, data, _key_lines(text, source))
    fields = reader.read()
    if reader.problems:
        raise ConfigFileError(sorted(reader.problems, key=_line_of))
    fields = {name: fields[name] for name in FIELDS}
    beyond = [f"{source}: {key} (read from {', '.join(CONFIG[key])}): {_cap(f'{value:,}')} is out of range: the "
              f"Catalog takes {reason}" for key, value in fields.items()
              if (reason := declared.out_of_range(declared.named(declared.MODEL)[key], value))]
    if beyond:
        raise ConfigFileError(beyond)
    params = total_params(**fields)
    if params > MAX_PARAMS:
        raise ConfigFileError([f"{source}: the sizes come to {params:,} parameters, more than {MAX_PARAMS:.0e}: a size"
                               " in the file is absurd"])
    model = ConfigModel(source=source, id=model_id(path, data.get("_name_or_path")), fields=fields,
                        defaults=reader.defaults, notes=reader.notes, params=params,
                        active_params=active_params(**fields), routed_params=routed_params(**fields),
                        kv_bytes_per_token=kv_bytes_per_token(fields["layers"], fields["kv_heads"],
                                                              fields["head_dim"], fields["kv_lora_rank"],
                                                              fields["qk_rope_head_dim"]))
    index = path.parent / INDEX_NAME
    if os.path.lexists(index):
        model.checkpoint = _compare_checkpoint(index, params, reader)
        model.notes.append(model.checkpoint["note"])
    return model


def _compare_checkpoint(index: Path, params: int, reader: _Fields) -> dict:
    """metadata.total_size against Ψ·(bytes per parameter), or why it is not compared."""
    source = str(index)
    result: dict[str, Any] = {"index": source}
    quantisation = reader.quantisation()
    dtype, dtype_bytes = reader.dtype()
    if quantisation is not None:
        method = str(quantisation.get("quant_method", "")).lower()
        bits = QUANTISED_BITS.get(method)
        if method in ("awq", "gptq"):
            given = quantisation.get("bits")
            bits = given if isinstance(given, int) and not isinstance(given, bool) and 1 <= given <= 16 else None
        if bits is None:
            result["note"] = (f"{source}: not compared: the checkpoint is quantised ({show(method or quantisation)})"
                              " with no single width per weight (mxfp4 keeps attention, router and embeddings in"
                              " BF16)")
            return result
        bytes_per_param, basis = bits / 8, f"{bits}-bit {method}"
    elif dtype_bytes is not None:
        bytes_per_param, basis = dtype_bytes, f"{show(dtype)}, {dtype_bytes} bytes"
    else:
        bytes_per_param = 2
        basis = ("torch_dtype not given: 2 bytes assumed" if dtype is None
                 else f"torch_dtype {show(dtype)} unknown: 2 bytes assumed")
    try:
        text, data = _decode_json(_read_bytes(index, source, MAX_INDEX_BYTES, "a safetensors index"), source,
                                  "a safetensors index")
    except ConfigFileError as exc:
        result["note"] = f"not compared: {exc.problems[0]}"
        return result
    metadata = data.get("metadata") if isinstance(data, dict) else None
    total = metadata.get("total_size") if isinstance(metadata, dict) else None
    if isinstance(total, bool) or not isinstance(total, (int, float)) or not math.isfinite(total) or total <= 0:
        result["note"] = (f"{source}: metadata.total_size: not compared: {show(total)} is not a positive number of"
                          " bytes")
        return result
    expected = params * bytes_per_param
    difference = total / expected - 1
    within = abs(difference) <= CHECKPOINT_TOLERANCE
    result.update(total_size=total, bytes_per_param=bytes_per_param, expected_bytes=expected, difference=difference,
                  within_tolerance=within)
    verdict = "within 2 %" if within else "more than 2 %: the architecture read may not be the checkpoint's"
    result["note"] = (f"{source}: metadata.total_size {int(total):,} bytes is {difference:+.2%} from Ψ × bytes per"
                      f" parameter ({basis}) = {expected:,.0f} bytes, {verdict}")
    return result


def model_id(path: Path, name_or_path: Any = None) -> str:
    """The Catalog id: the config's folder name, slugged; _name_or_path's last part when the folder is a hub
    snapshot's commit hash or has no letters or digits; else "model"."""
    folder = _slug(path.resolve().parent.name if path.parent == Path(".") else path.parent.name)
    if folder and not re.fullmatch(r"[0-9a-f]{40}", folder):
        return folder
    if isinstance(name_or_path, str) and _slug(name_or_path.rstrip("/").rsplit("/", 1)[-1]):
        return _slug(name_or_path.rstrip("/").rsplit("/", 1)[-1])
    return folder or "model"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:64].strip("-")


# The Catalog entry -------------------------------------------------------------------------------------------
def _billions(count: int) -> str:
    return f"{count:,} ({count / 1e9:.2f} B)"


def _comment(text: str, indent: str) -> list[str]:
    """A YAML comment, one or more lines, with control characters (a newline would end the comment) blanked and
    lone surrogates escaped."""
    lines = textwrap.wrap(_CONTROL.sub(" ", escaped(text)), 112 - len(indent), break_long_words=False,
                          break_on_hyphens=False)
    return [f"{indent}# {line}" for line in lines]


def shipped_differences(model: ConfigModel) -> list[str]:
    """The fields in which a model read under a shipped id differs from the shipped entry (none for a new id)."""
    from planner import shipped

    known = shipped.MODELS.get(model.id)
    return [] if known is None else [name for name in FIELDS if getattr(known, name, None) != model.fields[name]]


def catalog_entry_yaml(model: ConfigModel, indent: int = 0) -> str:
    """The model as one entry to paste under `catalog.models`: its fields, with Ψ, Ψ_active, KV bytes per token,
    the fields taken by default and the notes as comments. `indent` spaces go before the id."""
    pad, inner = " " * indent, " " * (indent + 2)
    key = model.id if re.fullmatch(r"[a-z][a-z0-9-]*", model.id) and model.id not in ("null", "true", "false") \
        else json.dumps(model.id)
    lines = [f"{pad}{key}:"]
    lines += _comment(f"from {show(model.source)}", inner)
    if changed := shipped_differences(model):
        lines += _comment(f"{model.id} is a shipped model: this entry replaces its {', '.join(changed)}", inner)
    lines += _comment(f"Ψ {_billions(model.params)} parameters", inner)
    lines += _comment(f"Ψ_active {_billions(model.active_params)} parameters", inner)
    lines += _comment(f"KV cache {model.kv_bytes_per_token:,} bytes per token"
                      f" ({model.kv_bytes_per_token / 1024:,.1f} KiB in BF16)", inner)
    if model.defaults:
        lines += _comment("taken by default: " + ", ".join(model.defaults), inner)
    for note in model.notes:
        lines += _comment(note, inner)
    shown = [name for name in FIELDS
             if (name not in MOE_FIELDS or model.fields["experts"]) and
             (name not in MLA_FIELDS or model.fields["kv_lora_rank"])]
    for name in shown:
        value = model.fields[name]
        lines.append(f"{inner}{name}: {str(value).lower() if isinstance(value, bool) else value}")
    return "\n".join(lines) + "\n"
