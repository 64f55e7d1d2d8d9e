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

import functools
import re
from collections.abc import Callable, Mapping

from pi_memory.named_tuple import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

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


class _Spec(NamedTuple):
    """A rule before it is compiled: most texts hold none of its ``needs``, and a rule
    whose pattern cannot match is neither compiled nor run (thirty patterns took longer
    to compile than a write of a memory takes to store it)."""

    kind: str
    source: str
    group: int = 0
    accept: Callable[[str], bool] | None = None
    #: Pieces of text the pattern cannot match without (one of them, at least).
    needs: tuple[str, ...] = ()
    #: The pattern ignores the case of ``needs``: they are looked for in the lowercased
    #: text, and any text that is not ASCII (where letters outside ASCII match ``k``,
    #: ``s`` or ``i`` in any case) is searched by the pattern.
    any_case: bool = False


def _entropic(token: str) -> bool:
    """A machine-made key mixes letters and digits; a kebab-case identifier does not."""
    body = token.split("-", 2)[-1] if token.count("-") >= 2 else token
    has_digit = any(c.isdigit() for c in body)
    has_alpha = any(c.isalpha() for c in body)
    return has_digit and has_alpha and body.count("-") * 4 < len(body)


#: A value that stands for a secret instead of being one (``$VAR``, ``<your-token>``).
_PLACEHOLDER_SOURCE: Final = r"""^(?:
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
    )$"""


@functools.lru_cache(maxsize=1)
def _placeholder_value() -> re.Pattern[str]:
    return re.compile(_PLACEHOLDER_SOURCE, re.VERBOSE)


def _literal_secret(value: str) -> bool:
    """An assigned value that looks like a secret, not code, a type or a placeholder."""
    value = value.strip()
    if len(value) < 4 or _placeholder_value().match(value):
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
    return len(value) >= 6 and not _placeholder_value().match(value.strip())


#: A name that says "secret", at the end of any longer name (``DB_PASSWORD``, ``PGPASSWORD``):
#: no prefix is matched, since any prefix would do.
_KEY_NAMES: Final = (
    r"(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey"
    r"|access[_-]?key|auth[_-]?key|private[_-]?key|client[_-]?secret|credentials?"
    r"|account[_-]?key|shared[_-]?access[_-]?key|sas[_-]?token)"
    r"(?:[_-]?(?:key|value|string))?"
)
#: What every name of :data:`_KEY_NAMES` holds (one of them), in lower case.
_KEY_NEEDS: Final = ("pass", "pwd", "secret", "token", "key", "credential")
_BOUNDARY: Final = r"(?<![A-Za-z0-9])"


def _rules() -> tuple[_Spec, ...]:
    """Every rule, in the order they are applied: the shapes first, then the contexts."""
    return (*_shaped_rules(), *_context_rules())


def _shaped_rules() -> tuple[_Spec, ...]:
    """Secrets known by their own shape: a key block, a vendor's prefix and length."""
    return (*_key_rules(), *_token_rules())


def _key_rules() -> tuple[_Spec, ...]:
    """A private key block, and AWS's keys."""
    return (
        _Spec(
            "private-key",
            (
                r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)"
            ),
            needs=("-----BEGIN ",),
        ),
        _Spec(
            "aws-key",
            (_BOUNDARY + r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
            needs=("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        ),
        _Spec(
            "aws-secret",
            (
                r"(?i:aws)[A-Za-z0-9_]*(?i:secret)[A-Za-z0-9_]*[\"']?\s*[:=]\s*[\"']?"
                r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
            ),
            1,
            needs=("aws",),
            any_case=True,
        ),
    )


def _token_rules() -> tuple[_Spec, ...]:
    """Each vendor's tokens, by their prefix and length."""
    return (
        _Spec(
            "github-token",
            (_BOUNDARY + r"gh[pousr]_[A-Za-z0-9]{36,255}\b"),
            needs=("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        ),
        _Spec(
            "github-token",
            (_BOUNDARY + r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b"),
            needs=("github_pat_",),
        ),
        _Spec("gitlab-token", (_BOUNDARY + r"glpat-[A-Za-z0-9_-]{20,}"), needs=("glpat-",)),
        _Spec(
            "anthropic-key",
            (_BOUNDARY + r"sk-ant-[a-z]+\d\d-[A-Za-z0-9_-]{32,}"),
            needs=("sk-ant-",),
        ),
        _Spec(
            "openai-key",
            (_BOUNDARY + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])"),
            0,
            _entropic,
            needs=("sk-",),
        ),
        _Spec("slack-token", (_BOUNDARY + r"xox[abposre]-[A-Za-z0-9-]{10,}"), needs=("xox",)),
        _Spec(
            "slack-webhook",
            (r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}"),
            needs=("https://hooks.slack.com/services/T",),
        ),
        _Spec(
            "google-api-key",
            (_BOUNDARY + r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
            needs=("AIza",),
        ),
        _Spec(
            "stripe-key",
            (_BOUNDARY + r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,99}\b"),
            needs=("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
        ),
        _Spec("stripe-key", (_BOUNDARY + r"whsec_[0-9A-Za-z]{24,}\b"), needs=("whsec_",)),
        _Spec("npm-token", (_BOUNDARY + r"npm_[A-Za-z0-9]{36}\b"), needs=("npm_",)),
        _Spec(
            "pypi-token",
            (_BOUNDARY + r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
            needs=("pypi-AgEIcHlwaS5vcmc",),
        ),
        _Spec("huggingface-token", (_BOUNDARY + r"hf_[A-Za-z0-9]{34,}\b"), needs=("hf_",)),
        _Spec(
            "sendgrid-key",
            (_BOUNDARY + r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
            needs=("SG.",),
        ),
        _Spec(
            "shopify-token",
            (_BOUNDARY + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
            needs=("shpat_", "shpca_", "shppa_", "shpss_"),
        ),
        _Spec(
            "digitalocean-token",
            (_BOUNDARY + r"do[opr]_v1_[a-f0-9]{64}\b"),
            needs=("doo_v1_", "dop_v1_", "dor_v1_"),
        ),
        _Spec("databricks-token", (_BOUNDARY + r"dapi[a-f0-9]{32}(?:-\d)?\b"), needs=("dapi",)),
        _Spec("twilio-key", (_BOUNDARY + r"SK[0-9a-f]{32}\b"), needs=("SK",)),
        _Spec(
            "jwt",
            (_BOUNDARY + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
            needs=("eyJ",),
        ),
    )


def _context_rules() -> tuple[_Spec, ...]:
    """Secrets known by what surrounds them: a URL's password, a bearer token, a key name."""
    return (
        _Spec(
            "url-credentials",
            (r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@?#\"'<>]*:([^\s@/\"'<>]+)@[A-Za-z0-9.\[\-]"),
            1,
            lambda value: not _placeholder_value().match(value),
            needs=("://",),
        ),
        _Spec(
            "auth-token",
            (r"(?i)\b(?:authorization:\s*)?(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{20,})"),
            1,
            _entropic,
            needs=("bearer", "basic", "token"),
            any_case=True,
        ),
        _Spec(
            "password",
            (r"(?<![\w-])--(?i:[a-z0-9_-]*?" + _KEY_NAMES + r")[ =]([^\s\"'$<{]{8,})"),
            1,
            _literal_secret,
            needs=("--",),
        ),
        _Spec(
            "password",
            (rf"(?i:{_KEY_NAMES})[\"']?\s*(?::=|=>|[:=])\s*([\"'])([^\"'\n]+)\1"),
            2,
            _quoted_secret,
            needs=_KEY_NEEDS,
            any_case=True,
        ),
        _Spec(
            "password",
            (
                rf"(?i:{_KEY_NAMES})\s*(?::=|=>|[:=])[ \t]*"
                + r"([A-Za-z0-9_+/=!@#$%^&*~.\-]{4,})(?=[\s,;&)}\]]|$)"
            ),
            1,
            _literal_secret,
            needs=_KEY_NEEDS,
            any_case=True,
        ),
    )


#: A span to its closing tag; an unclosed one to the end of its paragraph. A tag quoted
#: in code or prose (```<private>```, ``"<private>"``) is a mention, not a span.
_PRIVATE: Final = r"(?<![`\"'])<private>[\s\S]*?(?:</private>|(?=\n[ \t]*\n)|\Z)"
#: Each rule of :func:`_rules` once compiled, by its place there.
_compiled: dict[int, _Rule] = {}


@functools.lru_cache(maxsize=1)
def _specs() -> tuple[_Spec, ...]:
    return _rules()


def _rule(place: int) -> _Rule:
    """The rule at ``place`` in :func:`_rules`, compiled on its first use in this process."""
    rule = _compiled.get(place)
    if rule is None:
        spec = _specs()[place]
        pattern = re.compile(spec.source)
        rule = _compiled[place] = _Rule(spec.kind, pattern, spec.group, spec.accept)
    return rule


def _may_match(spec: _Spec, text: str) -> bool:
    """Whether ``text`` holds one of the pieces ``spec``'s pattern cannot match without."""
    if not spec.any_case:
        return any(need in text for need in spec.needs)
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(need in lowered for need in spec.needs)


def redact(text: str, extra: Mapping[str, str] | None = None) -> Redaction:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``, and how many were."""
    count = 0
    if "<private>" in text.lower():
        private = re.compile(_PRIVATE, re.IGNORECASE)
        text, count = private.subn(PLACEHOLDER.format("private"), text)
    for kind, regex in (extra or {}).items():
        text, n = _apply(_Rule(kind, re.compile(regex)), text)
        count += n
    for place, spec in enumerate(_specs()):
        if _may_match(spec, text):  # on the text as the rules before left it
            text, n = _apply(_rule(place), text)
            count += n
    return Redaction(text, count)


_DONE: Final = r"\[REDACTED:[a-z0-9-]+\]"


def _apply(rule: _Rule, text: str) -> tuple[str, int]:
    hits = 0
    out: list[str] = []
    pos = 0
    done = [m.span() for m in re.finditer(_DONE, text)] if "[REDACTED:" in text else []
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
