from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_memory.config import models
from pi_memory.config.load import PROJECT_CONFIG, USER_CONFIG, deep_merge, load_config
from pi_memory.config.parse import parse_config
from pi_memory.config.render import config_dict, pi_memory_dict
from pi_memory.config.schema import DreamConfig, LoadedConfig, Provider, SessionPersistence
from pi_memory.errors import ConfigError
from pi_memory.naming.home import expand_tilde
from tests.conftest import REPO
from tests.inproc import call

PROVIDERS = {
    "local": {"baseUrl": "http://127.0.0.1:8080/v1", "api": "openai", "apiKeyEnv": ""},
    "claude": {"baseUrl": "https://api.anthropic.com", "api": "anthropic", "apiKeyEnv": "AK"},
}


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def user_file(home: Path, data: Any) -> Path:
    return write_json(home / USER_CONFIG, data)


def parse(raw: dict[str, Any], env: dict[str, str] | None = None) -> LoadedConfig:
    return parse_config(raw, cwd="/work/proj", home="/home/you", platform="linux", env=env)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "clone"
    root.mkdir()
    return root


# -- files and trust -----------------------------------------------------------------------


def test_no_files_gives_the_defaults(hermetic_home: Path, project: Path) -> None:
    loaded = load_config(project, {}, home=hermetic_home)
    assert loaded.problems == ()
    assert loaded.sources == ()
    config = loaded.config
    assert config.memory_dir == str(hermetic_home / ".pi" / "memory")
    assert config.auto_dir == str(hermetic_home / ".pi" / "agent" / "memory-auto")
    assert config.layout == "categories"
    assert (config.review_turns, config.consolidate_every, config.index_budget) == (10, 20, 3000)
    assert (config.llm_max_tokens, config.review_months) == (10000, 0)


def test_an_untrusted_project_cannot_redirect_anything(hermetic_home: Path, project: Path) -> None:
    """A cloned repository's .pi/memory.json is ignored until the user trusts that root."""
    user_file(hermetic_home, {"memIndexMaxLines": 100})
    hostile = {
        "memoryDir": "/tmp/attacker",
        "defaults": {"model": "evil/model"},
        "providers": {"evil": {"baseUrl": "https://evil.example", "apiKeyEnv": "AK"}},
        "trustedProjects": [str(project)],
        "memIndexMaxLines": 5,
    }
    project_file = write_json(project / PROJECT_CONFIG, hostile)
    loaded = load_config(project, {"AK": "secret"}, home=hermetic_home)
    config = loaded.config
    assert config.memory_dir == str(hermetic_home / ".pi" / "memory")
    assert config.defaults.model is None
    assert dict(config.providers) == {}
    assert config.trusted_projects == ()
    assert config.mem_index_max_lines == 100
    assert loaded.errors == ()
    assert loaded.warnings == (
        f'{project_file} ignored: add {str(project)!r} to "trustedProjects" in '
        f"{hermetic_home / USER_CONFIG} to use it",
    )
    assert loaded.sources == (str(hermetic_home / USER_CONFIG),)


def test_a_trusted_project_is_deep_merged_over_the_user_file(
    hermetic_home: Path, project: Path
) -> None:
    user_file(
        hermetic_home,
        {
            "trustedProjects": [str(project)],
            "dream": {"model": "local/a"},
            "lock": {"timeoutMs": 9},
        },
    )
    write_json(
        project / PROJECT_CONFIG,
        {"dream": {"thinkLevel": "low"}, "lock": {"snapshotKeep": 2}, "memoryDir": "mem"},
    )
    loaded = load_config(project, {}, home=hermetic_home)
    config = loaded.config
    assert loaded.errors == ()
    assert (config.dream.model, config.dream.think_level) == ("local/a", "low")
    assert (config.lock.timeout_ms, config.lock.snapshot_keep) == (9, 2)
    # A relative path would name another store in every directory a command runs
    # from: ignored and said, as a relative PI_MEMORY_AUTO_DIR is.
    assert config.memory_dir == str(hermetic_home / ".pi" / "memory")
    assert loaded.warnings == ("\"memoryDir\" 'mem' is not an absolute path; ignored",)
    assert len(loaded.sources) == 2


def test_a_project_file_cannot_extend_the_trusted_list(hermetic_home: Path, tmp_path: Path) -> None:
    trusted, other = tmp_path / "trusted", tmp_path / "other"
    user_file(hermetic_home, {"trustedProjects": [str(trusted)]})
    write_json(trusted / PROJECT_CONFIG, {"trustedProjects": [str(other)]})
    write_json(other / PROJECT_CONFIG, {"memoryDir": "/tmp/attacker"})
    assert load_config(trusted, {}, home=hermetic_home).config.trusted_projects == (str(trusted),)
    redirected = load_config(other, {}, home=hermetic_home).config
    assert redirected.memory_dir == str(hermetic_home / ".pi" / "memory")


def test_trust_accepts_tilde_and_symlinked_roots(hermetic_home: Path) -> None:
    real = hermetic_home / "code" / "proj"
    write_json(real / PROJECT_CONFIG, {"layout": "files"})
    link = hermetic_home / "link"
    link.symlink_to(real)
    user_file(hermetic_home, {"trustedProjects": ["~/code/proj", "relative/is/ignored"]})
    assert load_config(real, {}, home=hermetic_home).config.layout == "files"
    assert load_config(link, {}, home=hermetic_home).config.layout == "files"


def test_project_root_can_differ_from_cwd(hermetic_home: Path, project: Path) -> None:
    user_file(hermetic_home, {"trustedProjects": [str(project)]})
    write_json(project / PROJECT_CONFIG, {"layout": "files"})
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    assert load_config(sub, {}, home=hermetic_home).config.layout == "categories"
    loaded = load_config(sub, {}, home=hermetic_home, project_root=project)
    assert loaded.config.layout == "files"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"memIndexMaxLines": 100,', "invalid JSON at line 1 column 26"),
        ("this is not json", "invalid JSON at line 1 column 1"),
        ("[1, 2]", "must hold a JSON object"),
        ("null", "must hold a JSON object"),
    ],
)
def test_a_malformed_user_file_counts_as_empty(
    hermetic_home: Path, project: Path, content: str, message: str
) -> None:
    path = hermetic_home / USER_CONFIG
    path.parent.mkdir(parents=True)
    path.write_text(content, encoding="utf-8")
    loaded = load_config(project, {}, home=hermetic_home)
    assert loaded.errors == ()
    assert len(loaded.warnings) == 1
    assert message in loaded.warnings[0]
    assert loaded.warnings[0].endswith("; using the defaults")
    assert loaded.config == load_config(project, {}, home=hermetic_home / "none").config._replace(
        memory_dir=loaded.config.memory_dir, auto_dir=loaded.config.auto_dir
    )


def test_a_wrong_value_in_a_good_file_is_an_error_line(hermetic_home: Path, project: Path) -> None:
    path = hermetic_home / USER_CONFIG
    path.parent.mkdir(parents=True)
    path.write_text('\ufeff{"layout": 3}', encoding="utf-8")
    loaded = load_config(project, {}, home=hermetic_home)
    assert len(loaded.problems) == 1
    assert '"layout" must be one of categories | files' in loaded.problems[0]
    assert loaded.config.mem_index_max_lines == 200


def test_invalid_utf8_user_file(hermetic_home: Path, project: Path) -> None:
    path = hermetic_home / USER_CONFIG
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"layout": "\xff"}')
    loaded = load_config(project, {}, home=hermetic_home)
    assert loaded.errors == ()
    assert loaded.warnings[0].startswith(f"{path}: cannot be read")


def test_a_malformed_file_does_not_stop_a_write(hermetic_home: Path, project: Path) -> None:
    path = hermetic_home / USER_CONFIG
    path.parent.mkdir(parents=True)
    path.write_text('{"layout": "files",', encoding="utf-8")
    wrote = call("write", "--keyword", "deploy", "Deploy with rsync.", cwd=project)
    assert wrote.code == 0, wrote.err
    found = call("search", "deploy", cwd=project)
    assert "Deploy with rsync." in found.out
    shown = call("show", cwd=project)
    assert "Memory: misconfigured" not in shown.out
    assert f"note: {path}: invalid JSON at line 1 column 20" in shown.out


def test_trusted_project_file_merges_objects_deeply_null_and_arrays_replace(
    hermetic_home: Path, project: Path
) -> None:
    user = {
        "trustedProjects": [str(project)],
        "lock": {"timeoutMs": 1000, "snapshotKeep": 3},
        "defaults": {"model": "local/a"},
        "dream": {"model": "local/b", "nudgeAfterSessions": 7},
        "providers": {"local": {"baseUrl": "http://127.0.0.1:1/v1"}},
    }
    over = {"lock": {"timeoutMs": 2000}, "dream": None, "trustedProjects": ["/elsewhere"]}
    path = hermetic_home / USER_CONFIG
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(user), encoding="utf-8")
    (project / ".pi").mkdir(exist_ok=True)
    (project / PROJECT_CONFIG).write_text(json.dumps(over), encoding="utf-8")
    loaded = load_config(project, {}, home=hermetic_home, project_root=project)
    assert loaded.problems == ()
    config = loaded.config
    assert (config.lock.timeout_ms, config.lock.snapshot_keep) == (2000, 3)
    # null replaces the whole section: dream falls back to its defaults and to defaults.model.
    assert (config.dream.model, config.dream.nudge_after_sessions) == (None, 5)
    assert models.task_model(config, "dream") == "local/a"
    assert config.trusted_projects == (str(project),)  # a project file never extends it
    assert deep_merge({"a": [1, 2], "b": {"c": 1}}, {"a": [3], "b": {"d": None}}) == {
        "a": [3],
        "b": {"c": 1, "d": None},
    }


# -- values --------------------------------------------------------------------------------


def test_wrong_types_are_errors_and_keep_the_default() -> None:
    loaded = parse(
        {
            "memIndexMaxLines": "200",
            "lock": {"timeoutMs": True},
            "autoSurfacing": {"enabled": "yes", "thinkLevel": "max"},
            "extractMemories": [],
            "defaults": {"model": 7},
        }
    )
    assert loaded.errors == (
        '"extractMemories" must be an object; using the defaults',
        "\"memIndexMaxLines\" must be an integer, got '200'; using 200",
        '"lock.timeoutMs" must be an integer, got True; using 5000',
        '"defaults.model" must be a string, got 7; ignored',
        "\"autoSurfacing.enabled\" must be true or false, got 'yes'; using True",
        '"autoSurfacing.thinkLevel" must be one of off | minimal | low | medium | high | '
        "xhigh, got 'max'; using off",
    )
    assert pi_memory_dict(loaded.config) == pi_memory_dict(parse({}).config)


def test_out_of_range_numbers_are_clamped_with_a_warning() -> None:
    loaded = parse({"memIndexInjectMaxLines": -5, "reviewTurns": 5000, "lock": {"timeoutMs": 1e3}})
    assert loaded.errors == ()
    assert loaded.config.mem_index_inject_max_lines == 0
    assert loaded.config.review_turns == 1000
    assert loaded.config.lock.timeout_ms == 1000
    assert loaded.warnings == (
        '"memIndexInjectMaxLines" -5 is out of range; using 0',
        '"reviewTurns" 5000 is out of range; using 1000',
    )


def test_null_sections_and_unknown_keys_fall_back_silently() -> None:
    loaded = parse({"dream": None, "enabled": False, "autoSurfacing": {"maxTopicBytes": 9}})
    assert loaded.problems == ()
    assert loaded.config.dream == DreamConfig()
    assert loaded.config.auto_surfacing.max_entry_bytes == 3072


def test_session_persistence_inherits_unless_a_task_sets_it() -> None:
    config = parse(
        {
            "defaults": {"sessionPersistence": {"enabled": True, "sessionDir": "~/sessions"}},
            "dream": {"sessionPersistence": {"enabled": False}},
        }
    ).config
    assert config.defaults.session_persistence == SessionPersistence(True, "/home/you/sessions")
    assert config.dream.session_persistence == SessionPersistence(False)
    assert config.auto_surfacing.session_persistence is None


@pytest.mark.parametrize(
    ("value", "platform", "expected"),
    [
        ("~", "linux", "/home/you"),
        ("~/mem", "linux", "/home/you/mem"),
        ("~/a/../b", "darwin", "/home/you/b"),
        ("~\\mem", "linux", "~\\mem"),
        ("~user/mem", "linux", "~user/mem"),
        ("/abs/~/x", "linux", "/abs/~/x"),
    ],
)
def test_expand_tilde(value: str, platform: str, expected: str) -> None:
    assert expand_tilde(value, "/home/you", platform) == expected


def test_expand_tilde_backslash_on_windows() -> None:
    assert expand_tilde("~\\.pi\\memory", "C:\\Users\\you", "win32") == (
        "C:\\Users\\you\\.pi\\memory"
    )


def test_memory_dir_resolution() -> None:
    assert parse({"memoryDir": "~/m"}).config.memory_dir == "/home/you/m"
    assert parse({"memoryDir": "/abs/m/"}).config.memory_dir == "/abs/m"


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"memoryDir": "rel/m"}, "memoryDir"),
        ({"autoDir": "./auto"}, "autoDir"),
        (
            {"dream": {"sessionPersistence": {"sessionDir": "s"}}},
            "dream.sessionPersistence.sessionDir",
        ),
    ],
)
def test_a_relative_directory_is_ignored_and_said(raw: dict[str, Any], key: str) -> None:
    # Relative to what? Each command's working directory would give another store.
    loaded = parse(raw)
    default = parse({}).config
    config = loaded.config
    assert (config.memory_dir, config.auto_dir) == (default.memory_dir, default.auto_dir)
    assert config.dream.session_persistence in (None, SessionPersistence())
    value = raw
    for part in key.split("."):
        value = value[part]
    assert loaded.warnings == (f'"{key}" {value!r} is not an absolute path; ignored',)


# -- environment ---------------------------------------------------------------------------


def test_environment_overrides_the_file_and_is_clamped() -> None:
    env = {
        "PI_MEMORY_AUTO_REVIEW_TURNS": "0",
        "PI_MEMORY_AUTO_CONSOLIDATE_EVERY": "9999",
        "PI_MEMORY_AUTO_INDEX_BUDGET": " 150 ",
        "PI_MEMORY_AUTO_LLM_MAX_TOKENS": "2048",
        "PI_MEMORY_AUTO_REVIEW_MONTHS": "-4",
        "PI_MEMORY_AUTO_DIR": "~/elsewhere",
    }
    loaded = parse({"reviewTurns": 50, "indexBudget": 5000, "autoDir": "/from/file"}, env)
    config = loaded.config
    assert (config.review_turns, config.consolidate_every, config.index_budget) == (1, 500, 200)
    assert (config.llm_max_tokens, config.review_months) == (2048, 0)
    assert config.auto_dir == "/home/you/elsewhere"
    assert loaded.problems == ()


def test_unset_or_bad_environment_values_leave_the_file_value() -> None:
    env = {"PI_MEMORY_AUTO_REVIEW_TURNS": "ten", "PI_MEMORY_AUTO_INDEX_BUDGET": ""}
    loaded = parse({"reviewTurns": 50, "indexBudget": 5000}, env)
    assert (loaded.config.review_turns, loaded.config.index_budget) == (50, 5000)
    assert loaded.warnings == ("PI_MEMORY_AUTO_REVIEW_TURNS='ten' is not an integer; ignored",)


def test_load_config_reads_the_environment(hermetic_home: Path, project: Path) -> None:
    env = {"PI_MEMORY_AUTO_DIR": "~/elsewhere"}
    loaded = load_config(project, env, home=hermetic_home)
    assert loaded.config.auto_dir == str(hermetic_home / "elsewhere")
    # A relative directory would depend on where each command runs: ignored, and said.
    loaded = load_config(project, {"PI_MEMORY_AUTO_DIR": "relative"}, home=hermetic_home)
    assert loaded.config.auto_dir == str(hermetic_home / ".pi" / "agent" / "memory-auto")
    assert loaded.warnings == ("PI_MEMORY_AUTO_DIR='relative' is not an absolute path; ignored",)


# -- providers and models ------------------------------------------------------------------


def test_providers_are_validated() -> None:
    loaded = parse(
        {
            "providers": {
                **PROVIDERS,
                "nourl": {"api": "openai"},
                "badapi": {"baseUrl": "http://x", "api": "grpc"},
                "notobject": "http://x",
            }
        }
    )
    assert sorted(loaded.config.providers) == ["claude", "local"]
    assert loaded.config.providers["claude"] == Provider(
        "https://api.anthropic.com", "anthropic", "AK"
    )
    assert len(loaded.errors) == 3


@pytest.mark.parametrize(
    ("value", "env", "resolves"),
    [
        ("local/qwen3", {}, True),
        ("claude/sonnet", {"AK": "key"}, True),
        ("claude/sonnet", {}, False),
        ("claude/sonnet", {"AK": ""}, False),
        ("unknown/model", {"AK": "key"}, False),
        ("local/", {}, False),
        ("local", {}, False),
    ],
)
def test_model_resolution(value: str, env: dict[str, str], resolves: bool) -> None:
    config = parse({"providers": PROVIDERS}).config
    assert models.model_resolves(config, value, env) is resolves


def test_seed_wording_and_order_of_model_errors() -> None:
    config = parse(
        {
            "extractMemories": {"enabled": True},
            "dream": {"model": "claude/x"},
            "providers": PROVIDERS,
        }
    ).config
    assert models.model_config_errors(config, {}) == [
        'model "claude/x" for dream is not resolvable (unknown id or missing credentials)',
        'no model for extractMemories — set "extractMemories.model" or "defaults.model" '
        "in memory.json",
        'no model for autoSurfacing — set "autoSurfacing.model" or "defaults.model" in memory.json',
    ]
    assert models.model_config_errors(config, {"AK": "k"}, resolve=None)[0].startswith("no model")


def test_without_any_model_the_deterministic_features_are_not_misconfigured() -> None:
    config = parse({}).config
    assert models.model_config_errors(config, {}) == []
    assert [e.split(" — ")[0] for e in models.model_config_errors(config, {}, strict=True)] == [
        "no model for dream",
        "no model for autoSurfacing",
    ]
    # Silent on model tasks: other settings do not opt into pi-memory's model check.
    assert models.model_config_errors(parse({"lock": {"timeoutMs": 10}}).config, {}) == []


@pytest.mark.parametrize(
    ("raw", "tasks"),
    [
        ({"dream": None}, ["dream", "autoSurfacing"]),
        ({"dream": {"model": None}}, ["dream", "autoSurfacing"]),
        (
            {"extractMemories": {"enabled": True}, "autoSurfacing": {"enabled": True}},
            ["dream", "extractMemories", "autoSurfacing"],
        ),
        ({"extractMemories": {"enabled": True}}, ["dream", "extractMemories", "autoSurfacing"]),
        ({"autoSurfacing": {"enabled": False}}, ["dream"]),
        ({"defaults": {"model": None}, "autoSurfacing": {"enabled": False}}, ["dream"]),
    ],
)
def test_a_file_that_names_a_model_task_gets_the_seeds_check(
    raw: dict[str, object], tasks: list[str]
) -> None:
    errors = models.model_config_errors(parse(raw).config, {})
    assert errors == [
        f'no model for {task} — set "{task}.model" or "defaults.model" in memory.json'
        for task in tasks
    ]


def test_task_model_falls_back_to_defaults_only() -> None:
    config = parse(
        {
            "defaults": {"model": "local/a"},
            "dream": {"model": "local/b"},
            "autoSurfacing": {"model": ""},
        }
    ).config
    assert models.task_model(config, "dream") == "local/b"
    assert models.task_model(config, "autoSurfacing") == "local/a"
    assert models.required_model(config, "extractMemories") == "local/a"
    with pytest.raises(ConfigError, match=r'no model for dream — set "dream\.model"'):
        models.required_model(parse({}).config, "dream")


def test_config_dict_round_trips_through_parse() -> None:
    raw = {
        "layout": "files",
        "providers": PROVIDERS,
        "trustedProjects": ["/p"],
        "defaults": {"model": "local/a"},
        "reviewMonths": 3,
    }
    config = parse(raw).config
    again = parse(config_dict(config)).config
    assert again == config


def test_importing_config_reads_no_json() -> None:
    code = (
        "import sys, pi_memory.config.load, pi_memory.config.models\n"
        "assert 'json' not in sys.modules, 'json imported'"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "-S", "-c", code], check=True, cwd=REPO, env=env)
