"""Project identity read from real git repositories, and the path helpers around it.

Repositories are made with the real ``git`` in ``tmp_path``; where it helps,
the answer is checked against what ``git`` itself reports (``rev-parse
--show-toplevel`` and ``config --get-regexp``), so the config reader is
judged by git, not by a hand-written expectation.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pi_memory.errors import ConfigError
from pi_memory.naming import (
    dir_names,
    entry_names,
    git_config,
    git_repo,
    graphemes,
    home,
    layer_dirs,
    platforms,
    project_key,
    remote_url,
)
from tests.conftest import REPO

LINUX = platforms.LINUX
WIN32 = platforms.WIN32


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def make_repo(path: Path, *remotes: tuple[str, str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    for name, url in remotes:
        git(path, "remote", "add", name, url)
    return path


def git_reference(cwd: Path) -> tuple[str, str]:
    """(kind, key) computed the reference way: by asking git."""
    try:
        toplevel = git(cwd, "rev-parse", "--show-toplevel").strip()
    except subprocess.CalledProcessError:
        return project_key.LOCAL, os.path.realpath(cwd)
    try:
        listing = git(cwd, "config", "--get-regexp", r"^remote\..*\.url$")
    except subprocess.CalledProcessError:
        listing = ""
    remotes = []
    for line in listing.splitlines():
        key, _, url = line.partition(" ")
        remotes.append((key[len("remote.") : -len(".url")], url))
    identity = project_key.identify_project(toplevel, toplevel, remotes, LINUX)
    return identity.kind, identity.key


def assert_matches_git(cwd: Path) -> project_key.ProjectKey:
    identity = project_key.project_key(cwd, LINUX)
    assert (identity.kind, identity.key) == git_reference(cwd)
    return identity


# --------------------------------------------------------------------------
# project_key on real repositories
# --------------------------------------------------------------------------


def test_origin_wins_over_other_remotes(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "proj",
        ("alpha", "https://example.com/alpha/repo.git"),
        ("origin", "git@github.com:yandy/pi-packages.git"),
        ("upstream", "https://gitlab.com/other/repo.git"),
    )
    identity = assert_matches_git(repo)
    assert identity == project_key.ProjectKey("git", "github.com/yandy/pi-packages", repo.resolve())


def test_without_origin_remotes_go_in_code_unit_order(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "proj",
        ("zeta", "https://example.com/zeta/repo.git"),
        ("alpha", "https://example.com/alpha/repo.git"),
        ("Beta", "https://example.com/Beta/repo.git"),
    )
    # "B" (U+0042) sorts before "a" (U+0061).
    assert assert_matches_git(repo).key == "example.com/Beta/repo"


def test_first_usable_remote_wins(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "proj",
        ("origin", "/srv/mirror/pi-packages.git"),
        ("backup", "file:///srv/backup.git"),
        ("upstream", "https://github.com/yandy/pi-packages.git"),
    )
    assert assert_matches_git(repo).key == "github.com/yandy/pi-packages"


def test_insteadof_rewrites_are_ignored(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", ("origin", "https://github.com/o/r.git"))
    git(repo, "config", "url.https://mirror.example.net/.insteadOf", "https://github.com/")
    # git itself now fetches from the mirror…
    assert git(repo, "remote", "get-url", "origin").strip() == "https://mirror.example.net/o/r.git"
    # …but the memory directory still follows the configured remote.
    assert assert_matches_git(repo).key == "github.com/o/r"


def test_first_url_of_a_remote_wins(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", ("origin", "https://github.com/yandy/pi-packages.git"))
    git(repo, "remote", "set-url", "--add", "origin", "https://second.example.com/o/r.git")
    assert assert_matches_git(repo).key == "github.com/yandy/pi-packages"


def test_subdirectory_maps_to_the_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", ("origin", "ssh://git@gitlab.com:2222/grp/sub/repo.git"))
    inner = repo / "packages" / "inner"
    inner.mkdir(parents=True)
    identity = assert_matches_git(inner)
    assert identity == project_key.ProjectKey("git", "gitlab.com/grp/sub/repo", repo.resolve())
    assert git_repo.project_root(inner) == repo.resolve()


def test_repository_without_remote_is_local_at_its_top_level(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj")
    inner = repo / "a" / "b"
    inner.mkdir(parents=True)
    identity = assert_matches_git(inner)
    assert identity == project_key.ProjectKey("local", str(repo.resolve()), repo.resolve())


def test_worktree_shares_the_main_repository_remote(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", ("origin", "https://github.com/o/r.git"))
    git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    assert (worktree / ".git").is_file()
    (worktree / "sub").mkdir()
    identity = assert_matches_git(worktree / "sub")
    assert identity == project_key.ProjectKey("git", "github.com/o/r", worktree.resolve())
    assert git_repo.project_root(worktree / "sub") == worktree.resolve()


def test_worktree_of_a_remoteless_repository_is_its_own_local_project(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj")
    git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    identity = assert_matches_git(worktree)
    assert identity == project_key.ProjectKey("local", str(worktree.resolve()), worktree.resolve())


def test_worktree_config_extension_is_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj")
    git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree))
    git(repo, "config", "extensions.worktreeConfig", "true")
    git(worktree, "config", "--worktree", "remote.origin.url", "https://example.org/wt/only.git")
    assert assert_matches_git(worktree).key == "example.org/wt/only"
    assert assert_matches_git(repo).kind == "local"


def test_separate_git_dir_is_followed(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "--separate-git-dir", str(tmp_path / "store.git"))
    git(work, "remote", "add", "origin", "https://example.com/sep/repo.git")
    assert (work / ".git").is_file()
    assert assert_matches_git(work) == project_key.ProjectKey(
        "git", "example.com/sep/repo", work.resolve()
    )


def test_inside_dot_git_is_local_at_cwd(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", ("origin", "https://github.com/o/r.git"))
    for cwd in (repo / ".git", repo / ".git" / "objects"):
        identity = assert_matches_git(cwd)
        assert identity == project_key.ProjectKey("local", str(cwd.resolve()), cwd.resolve())


def test_bare_repository_is_local(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    bare.mkdir()
    git(bare, "init", "-q", "--bare")
    git(bare, "remote", "add", "origin", "https://github.com/o/r.git")
    assert assert_matches_git(bare).kind == "local"


def test_plain_and_missing_directories_are_local(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert assert_matches_git(plain) == project_key.ProjectKey("local", str(plain.resolve()), plain)
    missing = tmp_path / "deleted"
    identity = project_key.project_key(missing, LINUX)
    assert identity == project_key.ProjectKey("local", str(missing.resolve()), missing.resolve())


def test_symlinked_cwd_maps_like_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj")
    link = tmp_path / "link"
    link.symlink_to(repo, target_is_directory=True)
    assert assert_matches_git(link).key == str(repo.resolve())


def test_hand_written_config_syntax(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj")
    config = repo / ".git" / "config"
    config.write_text(
        config.read_text()
        + "; a comment\n"
        + '[REMOTE "weird \\"name\\\\"]  # comment after the header\n'
        + '\tURL = "https://example.com/we ird"/repo.git ; trailing comment\n'
        + "[remote.Legacy]\n"
        + "\turl = https://example.com/legacy/repo.git\n"
        + '[remote "origin"]\n'
        + "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
        + "\turl = \\\n"
        + "  git@example.net:cont/inued.git\n"
    )
    assert git_reference(repo) == ("git", "example.net/cont/inued")
    assert project_key.project_key(repo, LINUX).key == "example.net/cont/inued"


def test_included_config_is_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj")
    (repo / ".git" / "remotes.inc").write_text('[remote "origin"]\n\turl = git://example.com/i/r\n')
    git(repo, "config", "include.path", "remotes.inc")
    assert assert_matches_git(repo).key == "example.com/i/r"


def test_config_git_cannot_read_gives_no_remote(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", ("origin", "https://github.com/o/r.git"))
    config = repo / ".git" / "config"
    config.write_text(config.read_text() + "this is not config\n")
    with pytest.raises(subprocess.CalledProcessError):
        git(repo, "config", "--get-regexp", "remote")
    assert project_key.project_key(repo, LINUX) == project_key.ProjectKey(
        "local", str(repo.resolve()), repo.resolve()
    )


# --------------------------------------------------------------------------
# The git config reader
# --------------------------------------------------------------------------


def test_parse_git_config_values() -> None:
    entries = git_config.parse_git_config(
        "\ufeffloose = before any section\n"
        "[Core]\n"
        "\tBare = false\n"
        "\tflag\n"
        '[remote "a.b"] url = x  y\t z  \n'
        '\tpushurl = " padded " # c\n'
        '\tother = a\\tb\\\\c\\"d\n'
    )
    assert entries == [
        git_config.ConfigEntry("", None, "loose", "before any section"),
        git_config.ConfigEntry("core", None, "bare", "false"),
        git_config.ConfigEntry("core", None, "flag", None),
        git_config.ConfigEntry("remote", "a.b", "url", "x  y  z"),
        git_config.ConfigEntry("remote", "a.b", "pushurl", " padded "),
        git_config.ConfigEntry("remote", "a.b", "other", 'a\tb\\c"d'),
    ]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('[remote "o"]\nurl = "open\n', id="open-quote"),
        pytest.param('[remote "o]\n', id="open-subsection"),
        pytest.param('[remote "o"]\nurl = a\\qb\n', id="bad-escape"),
        pytest.param('[remote "o"]\nurl x\n', id="no-equals"),
        pytest.param("[remote]\n1url = x\n", id="bad-name"),
    ],
)
def test_parse_git_config_rejects_what_git_rejects(text: str, tmp_path: Path) -> None:
    with pytest.raises(git_config.ConfigSyntaxError):
        git_config.parse_git_config(text)
    (tmp_path / "cfg").write_text(text)
    with pytest.raises(subprocess.CalledProcessError):
        git(tmp_path, "config", "--file", "cfg", "--list")


# --------------------------------------------------------------------------
# Memory directories
# --------------------------------------------------------------------------


def test_project_memory_dir_for_a_real_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", ("origin", "https://例子.com/o/r.git"))
    memory = tmp_path / "mem"
    assert (
        project_key.project_memory_dir(memory, repo / ".")
        == memory / "git" / "xn--fsqu00a.com__o__r"
    )
    plain = tmp_path / "plain"
    plain.mkdir()
    expected = memory / "local" / dir_names.project_dir_name(str(plain.resolve()), LINUX)
    assert project_key.project_memory_dir(memory, plain) == expected


@pytest.mark.parametrize(
    ("base", "directory", "platform"),
    [
        ("/mem", "/mem", LINUX),
        ("/mem", "/mem/../etc", LINUX),
        ("/mem", "/memory/git/x", LINUX),
        ("/mem", "/other", LINUX),
        ("C:\\mem", "D:\\mem\\git\\x", WIN32),
        ("C:\\mem", "C:\\mem\\..\\x", WIN32),
    ],
)
def test_a_directory_escaping_memory_dir_is_refused(
    base: str, directory: str, platform: str
) -> None:
    with pytest.raises(ConfigError, match=r"^Refusing to use memory directory .*: it escapes "):
        project_key.assert_inside_root(base, directory, platform)


def test_resolve_memory_dir_fails_closed() -> None:
    escaping = project_key.ProjectKey("..", "x", Path("/"))
    with pytest.raises(ConfigError):
        project_key.resolve_memory_dir("/mem", escaping, LINUX)
    hostile = project_key.ProjectKey("local", "..\\..\\..\\etc", Path("/"))
    assert project_key.resolve_memory_dir("C:\\mem", hostile, WIN32) == "C:\\mem\\local\\etc"


def test_categories_project_dir_is_under_the_repository_root(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj")
    (repo / "src").mkdir()
    expected = repo.resolve() / ".pi" / "agent" / "memory-auto"
    assert layer_dirs.categories_project_dir(repo / "src") == expected


# --------------------------------------------------------------------------
# Home, user paths and expansion
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "platform", "expected"),
    [
        ("~", LINUX, "/home/u"),
        ("~/", LINUX, "/home/u"),
        ("~/.pi/memory", LINUX, "/home/u/.pi/memory"),
        ("~\\mem", LINUX, "/work/~\\mem"),
        ("~user/mem", LINUX, "/work/~user/mem"),
        ("./memory", LINUX, "/work/memory"),
        ("../x/./y", LINUX, "/x/y"),
        ("/abs/dir/", LINUX, "/abs/dir"),
        ("~\\mem", WIN32, "C:\\Users\\u\\mem"),
        ("~/mem", WIN32, "C:\\Users\\u\\mem"),
        ("mem", WIN32, "C:\\work\\mem"),
        ("\\\\server\\share\\mem", WIN32, "\\\\server\\share\\mem"),
        ("D:\\mem", WIN32, "D:\\mem"),
    ],
)
def test_expand_user_path(value: str, platform: str, expected: str) -> None:
    if platform == WIN32:
        result = home.expand_user_path(value, Path("C:\\work"), platform, "C:\\Users\\u")
    else:
        result = home.expand_user_path(value, Path("/work"), platform, "/home/u")
    assert str(result) == expected


def test_home_dir_follows_the_environment(tmp_path: Path) -> None:
    assert home.home_dir({"HOME": "/h", "USERPROFILE": "C:\\u"}, LINUX) == Path("/h")
    assert home.home_dir({"HOME": "/h", "USERPROFILE": "C:\\u"}, WIN32) == Path("C:\\u")
    assert home.home_dir({}, LINUX) == Path.home()
    assert home.home_dir() == Path(os.environ["HOME"])


def test_categories_user_dir(hermetic_home: Path, tmp_path: Path) -> None:
    env = {"HOME": str(hermetic_home)}
    assert layer_dirs.categories_user_dir(env) == hermetic_home / ".pi" / "agent" / "memory-auto"
    override = {**env, "PI_MEMORY_AUTO_DIR": "~/elsewhere"}
    assert layer_dirs.categories_user_dir(override) == hermetic_home / "elsewhere"
    absolute = {**env, "PI_MEMORY_AUTO_DIR": str(tmp_path / "abs")}
    assert layer_dirs.categories_user_dir(absolute) == tmp_path / "abs"


# --------------------------------------------------------------------------
# Remote URLs beyond the vectors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "platform", "expected"),
    [
        ("git+ssh://git@github.com/o/r.git", LINUX, "github.com/o/r"),
        ("git+https://github.com/o/r", LINUX, "github.com/o/r"),
        ("HTTPS://GitHub.COM/o/r", LINUX, "github.com/o/r"),
        ("ssh://git@[2001:DB8:0:0:0:0:0:1]:22/o/r.git", LINUX, "[2001:db8::1]/o/r"),
        ("git@[::1]:o/r.git", LINUX, "[::1]/o/r"),
        ("https://github.com/o/r x.git", LINUX, "github.com/o/r%20x"),
        ("https://github.com/o/é.git", LINUX, "github.com/o/%C3%A9"),
        ("https://github.com/o/%7e.git", LINUX, "github.com/o/%7e"),
        ("https://github.com/a/b/../r.git", LINUX, "github.com/a/r"),
        ("https://github.com/a/%2E%2E/r", LINUX, "github.com/r"),
        ("https://github.com\\o\\r.git", LINUX, "github.com/o/r"),
        ("https://0x7f.1/o/r", LINUX, "127.0.0.1/o/r"),
        ("https://ex%41mple.com/o/r", LINUX, "example.com/o/r"),
        ("https://例子。com/o/r", LINUX, "xn--fsqu00a.com/o/r"),
        ("https://ＧＩＴＨＵＢ.com/o/r", LINUX, "github.com/o/r"),
        ("https://straße.de/o/r", LINUX, "xn--strae-oqa.de/o/r"),
        ("ssh://例子.com/o/r", LINUX, "xn--fsqu00a.com/o/r"),
        ("  https://github.com/o/r\n", LINUX, "github.com/o/r"),
        ("https://github.com:99999/o/r", LINUX, None),
        ("https://github.com:x/o/r", LINUX, None),
        ("https://exa mple.com/o/r", LINUX, None),
        ("ssh:///o/r", LINUX, None),
        ("ftp://example.com/o/r", LINUX, None),
        ("git@github.com:", LINUX, None),
        ("git@:o/r", LINUX, None),
        ("git@github.com:/abs/r.git", LINUX, "github.com/abs/r"),
        ("./a:b", LINUX, None),
        ("\\\\server\\share\\repo.git", WIN32, None),
        ("\\\\server\\share\\repo.git", LINUX, None),
        ("C:\\repos\\foo.git", WIN32, None),
        ("C:repo.git", WIN32, "c/repo"),
        ("", LINUX, None),
    ],
)
def test_normalize_remote_url_more(url: str, platform: str, expected: str | None) -> None:
    assert remote_url.normalize_remote_url(url, platform) == expected


# --------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------


def test_posix_keeps_backslashes_and_windows_rules_off() -> None:
    assert dir_names.project_dir_name("a\\b/nul", LINUX) == "a\\b__nul"
    assert dir_names.project_dir_name("nul", LINUX) == "nul"
    assert dir_names.project_dir_name("a\\b/nul", WIN32) == "a__b__nul"
    assert dir_names.project_dir_name("/a/./b/../c/", LINUX) == "a__b__c"


@pytest.mark.parametrize(
    ("unit", "size"),
    [
        pytest.param("e\u0301", 3, id="combining-acute"),
        pytest.param("\U0001f1ef\U0001f1f5", 8, id="flag-pair"),
        pytest.param("\u1100\u1161\u11a8", 9, id="hangul-jamo"),
        pytest.param("\u2764\ufe0f", 6, id="variation-selector"),
        pytest.param("\U0001f44d\U0001f3fd", 8, id="skin-tone"),
        pytest.param("\U0001f469\u200d\U0001f4bb", 11, id="zwj-sequence"),
    ],
)
def test_long_names_are_cut_between_grapheme_clusters(unit: str, size: int) -> None:
    assert len(unit.encode("utf-8")) == size
    assert list(graphemes.grapheme_clusters(unit * 3)) == [unit] * 3
    key = "/" + unit * (130 // size + 1)
    name = dir_names.project_dir_name(key, LINUX)
    prefix, _, suffix = name.rpartition("__")
    assert suffix == dir_names.hash8(key)
    kept = len(prefix.encode("utf-8"))
    assert kept <= 100
    assert kept > 100 - size
    assert prefix == unit * (kept // size)


def test_regional_indicators_pair_up_in_order() -> None:
    flags = "\U0001f1ef\U0001f1f5\U0001f1fa\U0001f1f8\U0001f1eb"
    assert list(graphemes.grapheme_clusters(flags)) == [flags[0:2], flags[2:4], flags[4:]]


def test_entry_file_names_never_take_the_index() -> None:
    # The naming rule alone derives MEMORY.md; the store's choice never takes it.
    assert entry_names.entry_file_name("MEMORY") == "MEMORY.md"
    assert entry_names.entry_file_name(".MEMORY") == "MEMORY.md"
    assert entry_names.entry_file_name(" MEMORY. ") == "MEMORY.md"
    assert entry_names.unique_entry_file_name("memory", []) == "memory-2.md"
    assert entry_names.unique_entry_file_name("MEMORY", []) == "MEMORY-2.md"
    assert entry_names.unique_entry_file_name("MEMORY", ["memory-2.md"]) == "MEMORY-3.md"
    assert entry_names.unique_entry_file_name("Memory", [], case_insensitive=False) == "Memory-2.md"


def test_unique_entry_file_name_clashes() -> None:
    assert entry_names.unique_entry_file_name("a", ["a.md", "A-2.md"]) == "a-3.md"
    assert entry_names.unique_entry_file_name("a", ["A.md"], case_insensitive=False) == "a.md"
    assert entry_names.unique_entry_file_name("con", ["_con.md"]) == "_con-2.md"


def test_entry_file_name_rules() -> None:
    assert entry_names.entry_file_name("a\x7fb\x00c") == "a_b_c.md"
    assert entry_names.entry_file_name("a\u3000b\u00a0c\ufeffd") == "a-b-c-d.md"
    # U+0085 is not JavaScript whitespace: it stays in the name.
    assert entry_names.entry_file_name("a\x85b") == "a\x85b.md"
    assert entry_names.entry_file_name("  ") == f"entry-{dir_names.hash8('  ')}.md"
    stem = entry_names.entry_file_name("字" * 40)[: -len(".md")]
    assert stem == "字" * 33
    assert entry_names.entry_file_name("nul.tar.gz") == "_nul.tar.gz.md"


# --------------------------------------------------------------------------
# Start-up cost
# --------------------------------------------------------------------------


def test_import_is_light() -> None:
    # pathlib is in the baseline: on Python 3.9 it imports urllib.parse itself.
    code = (
        "import sys, pathlib, dataclasses, re\n"
        "before = set(sys.modules)\n"
        "import pi_memory.naming.project_key, pi_memory.naming.layer_dirs\n"
        "import pi_memory.naming.entry_names\n"
        "heavy = {'hashlib', 'unicodedata', 'ipaddress', 'subprocess', 'json',\n"
        "         'encodings.idna', 'urllib.parse', 'pi_memory.errors'}\n"
        "print(sorted((set(sys.modules) - before) & heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


CONFIG_SAMPLES = [
    '[remote "o"]\r\n\turl = https://a/b\r\n',
    '[remote "a\\tb"]\n url = x\n',
    '[remote "o"]\nurl =\n[remote "p"]\nurl = y\n',
    '[remote "o"]\nurl = a\tb\t\n',
    '[remote "o"]\nurl = "a;b"#c\n',
    '[remote "o"]\nurl = a"  "b\n',
    '[ remote "o"]\nurl = x\n',
    '[remote  "o"]\nurl = x\n',
    '[remote "o"]url=x\n',
    '[remote "o"]\n\turl=x\\\n\n',
    '[remote "o"]\nurl = x\n[remote "o" ]\nurl = y\n',
    "[remote.O]\nurl = x\n",
    '[Remote "O"]\nURL = x\n',
    '[remote "o"]\nurl = é\n',
    '[remote "o"]\nurl\n',
    '#c\n;c\n[remote "o"] ; c\nurl = x\n',
    '[remote "o"]\nurl = x # y\n',
    '[remote "o"]\nurl = \\"x\n',
    '[remote ""]\nurl = x\n',
    '[remote "o"]\n  url  =  "  x  "  \n',
]


@pytest.mark.parametrize("text", CONFIG_SAMPLES)
def test_config_reader_agrees_with_git(text: str, tmp_path: Path) -> None:
    (tmp_path / "cfg").write_bytes(text.encode("utf-8"))
    done = subprocess.run(
        ["git", "config", "--file", "cfg", "--get-regexp", r"^remote\..*\.url$"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode > 1:
        with pytest.raises(git_config.ConfigSyntaxError):
            git_config.parse_git_config(text)
        return
    # git's listing read the way the reference implementation reads it.
    expected = []
    for line in done.stdout.splitlines():
        key, space, url = line.partition(" ")
        name = key[len("remote.") : -len(".url")]
        if space and name and url.strip():
            expected.append((name, url.strip()))
    remotes = git_config.remotes_from_config(git_config.parse_git_config(text))
    assert [(name, url.strip()) for name, url in remotes if url.strip()] == expected
