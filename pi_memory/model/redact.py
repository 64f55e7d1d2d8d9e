"""Secrets out of text before it leaves for a model or is stored: visible placeholders.

A secret becomes ``[REDACTED:<kind>]`` so a reader (person or model) still sees
that something was there and what it was; a ``<private>…</private>`` span
becomes ``[REDACTED:private]`` and its content never leaves. Precision matters
as much as recall: git SHAs, UUIDs, lockfile hashes, base64 fixtures and
ordinary code must come through unchanged, so every rule is anchored on a
vendor prefix or on a name that says "this is a secret", and generic values
must look like a literal (not a variable, a call or a placeholder).

Pure functions; the patterns compile on first use.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final, NamedTuple

PLACEHOLDER: Final = "[REDACTED:{}]"


class Redaction(NamedTuple):
    text: str
    #: How many secrets were replaced.
    hits: int


class _Rule(NamedTuple):
    kind: str
    pattern: re.Pattern[str]
    #: The group holding the secret (0: the whole match).
    group: int = 0
    #: Extra test on the secret's text; a false keeps the match.
    accept: Callable[[str], bool] | None = None


def _entropic(token: str) -> bool:
    """A machine-made key mixes letters and digits; a kebab-case identifier does not."""
    body = token.split("-", 2)[-1] if token.count("-") >= 2 else token
    has_digit = any(c.isdigit() for c in body)
    has_alpha = any(c.isalpha() for c in body)
    return has_digit and has_alpha and body.count("-") * 4 < len(body)


_PLACEHOLDER_VALUE: Final = re.compile(
    r"""^(?:
        \$\{?[A-Za-z_][A-Za-z0-9_]*\}?        # $VAR, ${VAR}
      | \$\{\{.*\}\}                          # ${{ secrets.X }}
      | \{\{.*\}\} | \{[A-Za-z_]+\}           # {{ x }}, {name}
      | <[^>]*>                               # <your-token>
      | %[A-Za-z_(][^%]*%?s?                  # %(password)s, %PASSWORD%
      | [*xX.•]{3,}                           # ****, xxxx, ...
      | (?i:none|null|nil|true|false|undefined|empty|required|optional|string|str|bytes|int)
      | (?i:(?:your|example|dummy|fake|sample|placeholder)[\w-]*|(?:my|some|test)[-_][\w-]*)
      | (?i:changeme|change[-_]me|redacted|secret|password|passwd|pass|pwd|token|hidden)
      | \[REDACTED:[a-z0-9-]+\]
    )$""",
    re.VERBOSE,
)


def _literal_secret(value: str) -> bool:
    """An assigned value that looks like a secret, not code, a type or a placeholder."""
    value = value.strip()
    if len(value) < 4 or _PLACEHOLDER_VALUE.match(value):
        return False
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+", value):
        return False  # self.password, config.token, os.environ
    if re.fullmatch(r"\d{1,7}", value) or re.fullmatch(r"[a-z]+(?:-[a-z]+)+", value):
        return False  # max_token = 4096, secret: tls-secret-name
    if re.fullmatch(r"[A-Za-z_]+", value):
        # password=password, token: str, Token: MyTokenType — a name, not a literal;
        # a long run of letters with consecutive capitals is a generated one.
        return len(value) >= 10 and bool(re.search(r"[A-Z]{2}", value)) and not value.isupper()
    return True


def _quoted_secret(value: str) -> bool:
    return len(value) >= 6 and not _PLACEHOLDER_VALUE.match(value.strip())


#: A name that says "secret", at the end of any longer name (``DB_PASSWORD``, ``PGPASSWORD``):
#: no prefix is matched, since any prefix would do.
_KEY_NAMES: Final = (
    r"(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey"
    r"|access[_-]?key|auth[_-]?key|private[_-]?key|client[_-]?secret|credentials?"
    r"|account[_-]?key|shared[_-]?access[_-]?key|sas[_-]?token)"
    r"(?:[_-]?(?:key|value|string))?"
)
_BOUNDARY: Final = r"(?<![A-Za-z0-9])"


def _rules() -> tuple[_Rule, ...]:
    """Every rule, in the order they are applied: the shapes first, then the contexts."""
    return (*_shaped_rules(), *_context_rules())


def _shaped_rules() -> tuple[_Rule, ...]:
    """Secrets known by their own shape: a key block, a vendor's prefix and length."""
    c = re.compile
    return (
        _Rule(
            "private-key",
            c(
                r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)"
            ),
        ),
        _Rule("aws-key", c(_BOUNDARY + r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b")),
        _Rule(
            "aws-secret",
            c(
                r"(?i:aws)[A-Za-z0-9_]*(?i:secret)[A-Za-z0-9_]*[\"']?\s*[:=]\s*[\"']?"
                r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
            ),
            1,
        ),
        _Rule("github-token", c(_BOUNDARY + r"gh[pousr]_[A-Za-z0-9]{36,255}\b")),
        _Rule("github-token", c(_BOUNDARY + r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b")),
        _Rule("gitlab-token", c(_BOUNDARY + r"glpat-[A-Za-z0-9_-]{20,}")),
        _Rule("anthropic-key", c(_BOUNDARY + r"sk-ant-[a-z]+\d\d-[A-Za-z0-9_-]{32,}")),
        _Rule(
            "openai-key",
            c(_BOUNDARY + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])"),
            0,
            _entropic,
        ),
        _Rule("slack-token", c(_BOUNDARY + r"xox[abposre]-[A-Za-z0-9-]{10,}")),
        _Rule(
            "slack-webhook",
            c(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}"),
        ),
        _Rule("google-api-key", c(_BOUNDARY + r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
        _Rule("stripe-key", c(_BOUNDARY + r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,99}\b")),
        _Rule("stripe-key", c(_BOUNDARY + r"whsec_[0-9A-Za-z]{24,}\b")),
        _Rule("npm-token", c(_BOUNDARY + r"npm_[A-Za-z0-9]{36}\b")),
        _Rule("pypi-token", c(_BOUNDARY + r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}")),
        _Rule("huggingface-token", c(_BOUNDARY + r"hf_[A-Za-z0-9]{34,}\b")),
        _Rule("sendgrid-key", c(_BOUNDARY + r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}")),
        _Rule("shopify-token", c(_BOUNDARY + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b")),
        _Rule("digitalocean-token", c(_BOUNDARY + r"do[opr]_v1_[a-f0-9]{64}\b")),
        _Rule("databricks-token", c(_BOUNDARY + r"dapi[a-f0-9]{32}(?:-\d)?\b")),
        _Rule("twilio-key", c(_BOUNDARY + r"SK[0-9a-f]{32}\b")),
        _Rule(
            "jwt",
            c(_BOUNDARY + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ),
    )


def _context_rules() -> tuple[_Rule, ...]:
    """Secrets known by what surrounds them: a URL's password, a bearer token, a key name."""
    c = re.compile
    return (
        _Rule(
            "url-credentials",
            c(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@?#\"'<>]*:([^\s@/\"'<>]+)@[A-Za-z0-9.\[\-]"),
            1,
            lambda value: not _PLACEHOLDER_VALUE.match(value),
        ),
        _Rule(
            "auth-token",
            c(r"(?i)\b(?:authorization:\s*)?(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{20,})"),
            1,
            _entropic,
        ),
        _Rule(
            "password",
            c(r"(?<![\w-])--(?i:[a-z0-9_-]*?" + _KEY_NAMES + r")[ =]([^\s\"'$<{]{8,})"),
            1,
            _literal_secret,
        ),
        _Rule(
            "password",
            c(rf"(?i:{_KEY_NAMES})[\"']?\s*(?::=|=>|[:=])\s*([\"'])([^\"'\n]+)\1"),
            2,
            _quoted_secret,
        ),
        _Rule(
            "password",
            c(
                rf"(?i:{_KEY_NAMES})\s*(?::=|=>|[:=])[ \t]*"
                + r"([A-Za-z0-9_+/=!@#$%^&*~.\-]{4,})(?=[\s,;&)}\]]|$)"
            ),
            1,
            _literal_secret,
        ),
    )


#: A span to its closing tag; an unclosed one to the end of its paragraph. A tag quoted
#: in code or prose (```<private>```, ``"<private>"``) is a mention, not a span.
_PRIVATE: Final = re.compile(
    r"(?<![`\"'])<private>[\s\S]*?(?:</private>|(?=\n[ \t]*\n)|\Z)", re.IGNORECASE
)
_compiled: tuple[_Rule, ...] | None = None


def _all_rules(extra: Mapping[str, str]) -> list[_Rule]:
    global _compiled  # noqa: PLW0603  # compiled once per process, on first use
    if _compiled is None:
        _compiled = _rules()
    rules = [_Rule(kind, re.compile(regex)) for kind, regex in extra.items()]
    return rules + list(_compiled)


def redact(text: str, extra: Mapping[str, str] | None = None) -> Redaction:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``, and how many were."""
    count = 0
    if "<private>" in text.lower():
        text, count = _PRIVATE.subn(PLACEHOLDER.format("private"), text)
    for rule in _all_rules(extra or {}):
        text, n = _apply(rule, text)
        count += n
    return Redaction(text, count)


_DONE: Final = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


def _apply(rule: _Rule, text: str) -> tuple[str, int]:
    hits = 0
    out: list[str] = []
    pos = 0
    done = [m.span() for m in _DONE.finditer(text)] if "[REDACTED:" in text else []
    for match in rule.pattern.finditer(text):
        group = rule.group if rule.pattern.groups >= rule.group else 0
        value = match.group(group)
        if value is None or (rule.accept is not None and not rule.accept(value)):
            continue
        start, end = match.span(group)
        if start < pos or any(start < b and a < end for a, b in done):
            continue  # inside a placeholder an earlier rule wrote
        out.append(text[pos:start])
        out.append(PLACEHOLDER.format(rule.kind))
        pos = end
        hits += 1
    if not hits:
        return text, 0
    out.append(text[pos:])
    return "".join(out), hits
