"""A git repository: non-merge commit messages are documents, authors are people (.mailmap)."""

import os
import shutil
import subprocess

import pytest

from expert_gui.core.data.formats.gitlog import looks_like
from expert_gui.core.data.loading import load_collection
from expert_gui.core.errors import CollectionError

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(repo, *args, author=("Ann Example", "ann@old.example"), data=None):
    env = dict(os.environ, GIT_AUTHOR_NAME=author[0], GIT_AUTHOR_EMAIL=author[1],
               GIT_COMMITTER_NAME="CI", GIT_COMMITTER_EMAIL="ci@example.org",
               GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=True,
                          capture_output=True, input=data).stdout


def commit(repo, name, message, author):
    (repo / name).write_text(message, encoding="utf-8")
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message, author=author)


@pytest.fixture
def repo(tmp_path):
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "ring.c", "ring: fix lockless enqueue\n\nThe ring buffer lost entries.",
           ("Ann Example", "ann@old.example"))
    commit(repo, "crypto.c", "crypto: add device offload", ("Bob Builder", "bob@example.org"))
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, "side.c", "eventdev: scheduling queues", ("A. Example", "ann@new.example"))
    git(repo, "checkout", "-q", "main")
    commit(repo, "main.c", "ring: document burst size", ("Bob Builder", "bob@example.org"))
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch side", "side")
    # Ann's two identities are one person for git itself
    (repo / ".mailmap").write_text("Ann Example <ann@example.org> <ann@old.example>\n"
                                   "Ann Example <ann@example.org> A. Example <ann@new.example>\n",
                                   encoding="utf-8")
    return repo


def test_non_merge_commits_and_mailmap_identities(repo):
    c = load_collection(repo, use_cache=False)
    assert c.report.format == "git"
    assert c.n_documents == 4  # the merge commit is not a document
    texts = sorted(c.text(i) for i in range(c.n_documents))
    assert texts[-1] == "ring: fix lockless enqueue\n\nThe ring buffer lost entries."
    assert not any("Merge" in t for t in texts)
    assert c.person_ids == ["ann-example", "bob-builder"]
    assert c.person_names == ["Ann Example", "Bob Builder"]
    assert len(c.documents_of(0)) == 2 and len(c.documents_of(1)) == 2
    hashes = git(repo, "log", "--no-merges", "--format=%H").decode().split()
    assert all(any(h.startswith(d) for h in hashes) and len(d) >= 12 for d in c.doc_ids)


def test_cache_follows_new_commits_and_mailmap(repo):
    first = load_collection(repo)
    assert load_collection(repo).fingerprint == first.fingerprint
    commit(repo, "new.c", "net: new driver", ("Cy Coder", "cy@example.org"))
    second = load_collection(repo)
    assert second.fingerprint != first.fingerprint and second.n_documents == 5


def test_invalid_utf8_message_is_reported(repo):
    # `git commit` repairs bad bytes, so write the commit object by hand, as old tools did
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    head = git(repo, "rev-parse", "HEAD").strip()
    obj = (b"tree " + tree + b"\nparent " + head + b"\nauthor Cy <cy@example.org> 0 +0000\n"
           b"committer Cy <cy@example.org> 0 +0000\n\nbad \xff bytes in net driver\n")
    new = git(repo, "hash-object", "-t", "commit", "-w", "--stdin", data=obj).strip()
    git(repo, "update-ref", "HEAD", new.decode())
    c = load_collection(repo, use_cache=False)
    [problem] = [p for p in c.report.problems if p.kind == "invalid-utf8"]
    assert "(git log)" in problem.file and problem.line == 1
    assert "\ufffd" in c.text(c.doc_index[c.doc_ids[0]])


def test_not_a_repository(tmp_path):
    with pytest.raises(CollectionError, match="git repository"):
        load_collection(tmp_path, format="git", use_cache=False)


def test_repository_without_commits(tmp_path):
    git(tmp_path, "init", "-q")
    with pytest.raises(CollectionError, match="git repository"):
        load_collection(tmp_path, use_cache=False)


# -- issue 43 items 1 and 2: a repository someone prepared ---------------------------------------
def lazy_fetching(repo, **config):
    """Make `repo` a partial clone whose first commit must be fetched from its promisor remote,
    with `config` set in its own .git/config (what a prepared repository carries)."""
    first = git(repo, "rev-list", "--max-parents=0", "HEAD").decode().split()[0]
    (repo / ".git" / "objects" / first[:2] / first[2:]).unlink()
    settings = {"core.repositoryformatversion": "1", "extensions.partialClone": "origin",
                "remote.origin.promisor": "true", **config}
    for key, value in settings.items():
        git(repo, "config", key, value)


@pytest.mark.parametrize("remote", ["ssh", "upload-pack"])
def test_a_prepared_repository_runs_no_command(repo, tmp_path, remote):
    # issue 43 item 1: core.sshCommand ran when git fetched a missing object for `git log`
    marker = tmp_path / "marker"
    command = f"touch {marker}; false"
    url = {"ssh": "ssh://example.invalid/x", "upload-pack": str(tmp_path)}[remote]
    lazy_fetching(repo, **{"remote.origin.url": url, "core.sshCommand": command,
                                     "remote.origin.uploadpack": command,
                                     "core.fsmonitor": command})
    with pytest.raises(CollectionError, match="git repository with commits"):
        load_collection(repo, use_cache=False)
    assert not marker.exists()


def test_a_mailmap_outside_the_folder_is_not_read(repo, tmp_path):
    outside = tmp_path / "elsewhere.mailmap"
    outside.write_text("Someone Outside <x@y> <bob@example.org>\n", encoding="utf-8")
    git(repo, "config", "mailmap.file", str(outside))
    c = load_collection(repo, use_cache=False)
    assert c.person_names == ["Ann Example", "Bob Builder"]


@pytest.mark.parametrize("how", ["gitdir file", "link", "alternates", "environment"])
def test_another_repository_is_never_read_for_this_folder(repo, tmp_path, monkeypatch, how):
    # issue 43 item 2: a folder holding only `.git` (a file naming another repository, or a
    # link to one) was read as that repository
    folder = tmp_path / "collection"
    folder.mkdir()
    if how == "gitdir file":
        (folder / ".git").write_text(f"gitdir: {repo / '.git'}\n", encoding="utf-8")
    elif how == "link":
        (folder / ".git").symlink_to(repo / ".git")
    elif how == "alternates":
        git(folder, "init", "-q")
        (folder / ".git" / "objects" / "info" / "alternates").write_text(
            str(repo / ".git" / "objects") + "\n", encoding="utf-8")
        head = git(repo, "rev-parse", "HEAD").decode().strip()
        (folder / ".git" / "refs" / "heads" / "master").write_text(head + "\n")
        git(folder, "symbolic-ref", "HEAD", "refs/heads/master")
    else:  # the user's GIT_DIR must not make this folder's repository another one
        git(folder, "init", "-q")
        commit(folder, "mine.c", "net: my own commit", ("Cy Coder", "cy@example.org"))
        monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
        c = load_collection(folder, use_cache=False)
        assert c.person_ids == ["cy-coder"] and c.n_documents == 1
        return
    with pytest.raises(CollectionError, match="outside the folder read"):
        load_collection(folder, format="git", use_cache=False)


def test_a_folder_inside_a_repository_is_not_read_as_it(repo):
    sub = repo / "docs"
    sub.mkdir()
    assert not looks_like(sub)
    with pytest.raises(CollectionError, match="no .git in the folder"):
        load_collection(sub, format="git", use_cache=False)


@pytest.mark.parametrize("how", ["include", "includeIf", "fifo"])
def test_a_repository_git_would_block_on_or_read_from_elsewhere_is_refused(repo, tmp_path, how):
    # git reads an included file (any file: a FIFO blocks it, /dev/zero never ends) before
    # any setting of its command line, and blocks on a FIFO in its own folder
    if how == "fifo":
        (repo / ".git" / "HEAD").unlink()
        os.mkfifo(repo / ".git" / "HEAD")
        match = "found a FIFO"
    else:
        outside = tmp_path / "outside.config"
        outside.write_text("[[[ not a config\n")
        section = "[include]" if how == "include" else '[includeIf "gitdir:/"]'
        with open(repo / ".git" / "config", "a", encoding="utf-8") as f:
            f.write(f"{section}\n\tpath = {outside}\n")
        match = "includes other files"
    with pytest.raises(CollectionError, match=match):
        load_collection(repo, use_cache=False)
