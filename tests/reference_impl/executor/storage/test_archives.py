"""We test that unpacking an input-artifact tarball never writes outside its destination.

Issue 11 (tar-slip): the members `d1 -> .`, `d2 -> .`, `lnk -> d1/d2/../..` each
look harmless on their own, but once they exist `lnk` is two levels above the
destination, and a later member `lnk/x` landed there. Every archive here is
unpacked into `<sentinel>/l1/l2/l3/box/art`, and each test asserts that nothing
under the sentinel changed outside the artifact (and, when unpacking is refused,
that the staging directory is gone too). The archive kinds: the exploit in every
order of its links; a chain that only escapes once all its links exist (also
one level up, through the single-entry rename); a link that leaves the kept tree
and comes back in through the name it has only while staged; a link planted
at the staging directory's name; absolute and `..` names and
link targets; a hard link to a path outside; a link to /etc written through;
device, FIFO entries. A normal archive with files, directories, in-tree links and
a hard link still extracts with its content, modes and times.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import os
import stat
import tarfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from reference_impl.executor.errors import ArtifactError
from reference_impl.executor.storage import archives

MTIME = 1_700_000_000


def entry(
    name: str,
    kind: bytes = tarfile.REGTYPE,
    *,
    data: bytes = b"",
    link: str = "",
    mode: int = 0o644,
) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.mtime = MTIME
    info.linkname = link
    if kind in tarfile.REGULAR_TYPES:
        info.size = len(data)
    return info, data


def sym(name: str, target: str) -> tuple[tarfile.TarInfo, bytes]:
    return entry(name, tarfile.SYMTYPE, link=target, mode=0o777)


def hard(name: str, target: str) -> tuple[tarfile.TarInfo, bytes]:
    return entry(name, tarfile.LNKTYPE, link=target)


def directory(name: str, mode: int = 0o755) -> tuple[tarfile.TarInfo, bytes]:
    return entry(name, tarfile.DIRTYPE, mode=mode)


def snapshot(root: Path) -> dict[str, str]:
    """Every path under `root` (links not followed) with its kind and content."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                what = "link " + os.readlink(path)
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    what = "file " + hashlib.sha256(f.read()).hexdigest()
            else:
                what = f"mode {st.st_mode:o}"
            seen[os.path.relpath(path, root)] = what
    return seen


@dataclass
class Box:
    """An archive, its destination deep under a sentinel, and the sentinel's state."""

    sentinel: Path
    dest: Path
    archive: Path

    def write(self, *members: tuple[tarfile.TarInfo, bytes]) -> None:
        with tarfile.open(self.archive, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
            for info, data in members:
                tar.addfile(info, io.BytesIO(data) if info.isreg() else None)

    def unpack(self) -> None:
        archives.unpack(archive=self.archive, dest=self.dest)

    def refused(self, match: str, *members: tuple[tarfile.TarInfo, bytes]) -> None:
        """Unpacking `members` fails with `match` and leaves the sentinel as it was."""
        self.write(*members)
        before = snapshot(self.sentinel)
        with pytest.raises(ArtifactError, match=match):
            self.unpack()
        assert snapshot(self.sentinel) == before
        assert not self.dest.exists()

    def extracted(self, *members: tuple[tarfile.TarInfo, bytes]) -> None:
        """Unpacking `members` succeeds and writes nothing but the artifact."""
        self.write(*members)
        before = snapshot(self.sentinel)
        self.unpack()
        art = os.path.relpath(self.dest, self.sentinel)
        after = {
            path: what
            for path, what in snapshot(self.sentinel).items()
            if path != art and not path.startswith(art + os.sep)
        }
        assert after == before


@pytest.fixture
def box(tmp_path: Path) -> Box:
    sentinel = tmp_path / "sentinel"
    parent = sentinel / "l1" / "l2" / "l3" / "box"
    parent.mkdir(parents=True)
    (sentinel / "l1" / "keep").write_text("untouched")
    (parent / "secret").write_text("secret")
    return Box(sentinel=sentinel, dest=parent / "art", archive=tmp_path / "in.tgz")


CHAIN = [sym("d1", "."), sym("d2", "."), sym("lnk", "d1/d2/../..")]


@pytest.mark.parametrize("links", list(itertools.permutations(CHAIN)))
@pytest.mark.parametrize("name", ["lnk/x", "lnk/deeper/x", "./lnk/x"])
def test_the_exploit_writes_nothing_outside(box, links, name):
    box.refused("illegal file path", *links, entry(name, data=b"pwned"))
    assert not (box.sentinel / "l1" / "l2" / "l3" / "x").exists()


def test_the_exploit_through_a_dotdot_name_is_refused_by_name(box):
    box.refused("illegal file path: lnk/../../x", *CHAIN, entry("lnk/../../x"))


@pytest.mark.parametrize("links", list(itertools.permutations(CHAIN)))
def test_a_link_chain_that_escapes_once_complete_is_refused(box, links):
    box.refused("illegal symlink target: lnk -> d1/d2/../..", *links)


def test_a_chain_through_a_directory_link_is_refused(box):
    box.refused(
        "illegal symlink target",
        directory("sub"),
        sym("sub/up", ".."),
        sym("esc", "sub/up/sub/up/.."),
        entry("other"),
    )


def test_a_link_to_the_top_of_a_single_entry_is_refused(box):
    # `top/up -> ..` stays inside the staging directory, but `top` alone becomes
    # the artifact, and there `up` names the artifact's parent.
    box.refused("illegal symlink target: top/up -> ..", sym("top/up", ".."))


def test_a_link_back_in_through_the_single_entrys_own_name_is_refused(box):
    # Issue 29: `secret/k -> ../secret/key` resolves inside `secret` while it is
    # in the staging directory; `secret` is renamed to `art`, where the same link
    # names `box/secret/key`, a sibling of the artifact.
    sibling = box.dest.parent / "sibling-secret"
    sibling.mkdir()
    (sibling / "key").write_text("key")
    box.refused(
        "illegal symlink target: sibling-secret/k -> ../sibling-secret/key",
        directory("sibling-secret"),
        entry("sibling-secret/key", data=b"mine", mode=0o600),
        sym("sibling-secret/k", "../sibling-secret/key"),
    )


def test_a_link_back_in_through_the_staging_name_is_refused(box):
    # With several entries the staging directory `art.tmpdir` becomes `art`,
    # where `../art.tmpdir/f` names something beside the artifact.
    box.refused(
        "illegal symlink target: x -> ../art.tmpdir/f",
        entry("f", data=b"f"),
        sym("x", "../art.tmpdir/f"),
    )


def test_a_link_planted_at_the_staging_directory_is_never_followed(box):
    # `<dest>.tmpdir` on a shared volume: the staging root is opened with
    # O_NOFOLLOW, so nothing is written where the link points.
    box.dest.with_name("art.tmpdir").symlink_to(box.sentinel / "l1")
    box.refused("failed to unpack", entry("x", data=b"pwned"))
    assert not (box.sentinel / "l1" / "x").exists()


def test_a_lone_link_is_refused(box):
    # As the only entry it would be renamed to the artifact's path, where its
    # relative target names something next to the artifact.
    box.refused("illegal symlink target: secret -> secret", sym("secret", "secret"))


def test_a_file_through_an_absolute_link_is_refused(box):
    outside = box.sentinel / "l1"
    box.refused(
        f"illegal symlink target: out -> {outside}",
        sym("out", str(outside)),
        entry("out/x", data=b"pwned"),
    )


def test_a_file_through_a_link_to_etc_is_refused(box):
    probe = f"wpc-tarslip-{uuid.uuid4().hex}"
    try:
        box.refused(
            "illegal symlink target: etc -> /etc",
            sym("etc", "/etc"),
            entry(f"etc/{probe}", data=b"pwned"),
        )
    finally:
        leaked = Path("/etc") / probe
        assert not leaked.exists()


@pytest.mark.parametrize("name", ["../x", "a/../../x", "../box/x"])
def test_dotdot_names_are_refused(box, name):
    box.refused(f"illegal file path: {name}", entry("a/ok"), entry(name))


def test_an_absolute_name_is_refused(box, tmp_path):
    target = tmp_path / "abs-probe"
    box.refused(f"illegal file path: {target}", entry("ok"), entry(str(target)))
    assert not target.exists()


def test_an_absolute_tmp_name_is_refused(box):
    box.refused("illegal file path: /tmp/x", entry("/tmp/x"))


@pytest.mark.parametrize(
    "target", ["../../secret", "b/../../../secret", "../../box/secret"]
)
def test_a_symlink_escaping_lexically_is_refused(box, target):
    box.refused("illegal symlink target", directory("a"), sym("a/s", target))


@pytest.mark.parametrize("target", ["../secret", "/etc/passwd", "x/../../secret"])
def test_a_hard_link_outside_is_refused(box, target):
    box.refused("illegal hard link target", entry("x"), hard("h", target))
    assert os.stat(box.dest.parent / "secret").st_nlink == 1


def test_a_hard_link_through_a_symlink_is_refused(box):
    box.refused(
        "illegal hard link target: h -> s/f",
        directory("sub"),
        entry("sub/f"),
        sym("s", "sub"),
        hard("h", "s/f"),
    )


def test_a_hard_link_to_something_not_extracted_is_refused(box):
    box.refused(
        "illegal hard link target: h -> missing", entry("x"), hard("h", "missing")
    )


def test_a_hard_link_to_a_directory_is_refused(box):
    box.refused("illegal hard link target: h -> d", directory("d"), hard("h", "d"))


def test_a_file_replacing_an_in_tree_link_does_not_write_through_it(box):
    # A later member of the link's name replaces the link; it never opens it.
    box.extracted(entry("f", data=b"original"), sym("l", "f"), entry("l", data=b"new"))
    assert (box.dest / "f").read_bytes() == b"original"
    assert not (box.dest / "l").is_symlink()
    assert (box.dest / "l").read_bytes() == b"new"


@pytest.mark.parametrize(
    ("kind", "word"),
    [
        (tarfile.CHRTYPE, "character device"),
        (tarfile.BLKTYPE, "block device"),
        (tarfile.FIFOTYPE, "FIFO"),
    ],
)
def test_devices_and_fifos_are_refused_by_name(box, kind, word):
    box.refused(f"{word}.*dev/null", entry("ok"), entry("dev/null", kind))


def test_a_directory_member_through_a_link_is_refused(box):
    box.refused(
        "illegal file path: l/d",
        directory("real"),
        sym("l", "real"),
        directory("l/d"),
        entry("x"),
    )


def test_a_normal_archive_extracts_with_content_modes_links_and_times(box):
    box.extracted(
        directory("./"),
        directory("./data", mode=0o750),
        entry("./data/v1.txt", data=b"one", mode=0o640),
        entry("./data/run.sh", data=b"#!/bin/sh\n", mode=0o4755),
        entry("./implicit/deep/f", data=b"deep"),
        entry("./top.txt", data=b"top", mode=0o600),
        sym("./latest", "data/v1.txt"),
        sym("./cur", "data"),
        sym("./data/up", "../top.txt"),
        sym("./data/self", "."),
        sym("./dangling", "not-there"),
        hard("./data/hard", "top.txt"),
        entry("./dup", data=b"first"),
        entry("./dup", data=b"second"),
    )
    art = box.dest
    assert (art / "data" / "v1.txt").read_bytes() == b"one"
    assert (art / "implicit" / "deep" / "f").read_bytes() == b"deep"
    assert (art / "dup").read_bytes() == b"second"
    assert stat.S_IMODE(os.stat(art / "data").st_mode) == 0o750
    assert stat.S_IMODE(os.stat(art / "data" / "v1.txt").st_mode) == 0o640
    assert stat.S_IMODE(os.stat(art / "data" / "run.sh").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(art / "top.txt").st_mode) == 0o600
    assert os.stat(art / "data" / "v1.txt").st_mtime == MTIME
    assert os.stat(art / "data").st_mtime == MTIME
    assert os.readlink(art / "latest") == "data/v1.txt"
    assert (art / "latest").read_bytes() == b"one"
    assert (art / "cur" / "v1.txt").read_bytes() == b"one"
    assert (art / "data" / "up").read_bytes() == b"top"
    assert os.readlink(art / "dangling") == "not-there"
    hard_link = os.stat(art / "data" / "hard")
    assert hard_link.st_ino == os.stat(art / "top.txt").st_ino
    assert hard_link.st_nlink == 2
    assert not box.dest.with_name("art.tmpdir").exists()


def test_a_single_directory_entry_becomes_the_artifact_with_its_links(box):
    box.extracted(
        directory("top"),
        entry("top/f", data=b"f"),
        sym("top/l", "f"),
        sym("top/sub/up", "../f"),
    )
    assert (box.dest / "l").read_bytes() == b"f"
    assert (box.dest / "sub" / "up").read_bytes() == b"f"


def test_a_single_file_entry_becomes_the_artifact(box):
    box.extracted(entry("only.txt", data=b"x", mode=0o600))
    assert box.dest.read_bytes() == b"x"
    assert stat.S_IMODE(os.stat(box.dest).st_mode) == 0o600


def test_a_read_only_directory_is_filled_before_its_mode_is_set(box):
    box.extracted(directory("ro", mode=0o500), entry("ro/f", data=b"f"), entry("g"))
    assert (box.dest / "ro" / "f").read_bytes() == b"f"
    assert stat.S_IMODE(os.stat(box.dest / "ro").st_mode) == 0o500


def test_an_archive_made_by_tar_add_round_trips(box, tmp_path):
    src = tmp_path / "out"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "f").write_text("f")
    os.symlink("sub/f", src / "l")
    os.link(src / "sub" / "f", src / "h")
    archives.tar_gz(src=src, dest=box.archive)
    box.unpack()
    assert (box.dest / "l").read_text() == "f"
    assert os.stat(box.dest / "h").st_ino == os.stat(box.dest / "sub" / "f").st_ino


def test_a_truncated_archive_is_an_artifact_error(box):
    box.write(entry("f", data=os.urandom(200_000)))
    box.archive.write_bytes(box.archive.read_bytes()[:-5000])
    before = snapshot(box.sentinel)
    with pytest.raises(ArtifactError, match="failed to unpack"):
        box.unpack()
    assert snapshot(box.sentinel) == before
