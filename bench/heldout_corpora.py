"""The held-out folders (bench/heldout/), built again from pinned sources.

Each folder in bench/heldout/README.md was made once by hand on a development machine
(an sdist unpacked, part of it kept; files Debian installed, copied). The questions in
`bench/heldout/NAME/questions.jsonl` were written against exactly those bytes, so each
folder here is rebuilt from the same sources, pinned the same way as bench/corpora.py pins
the eval corpora (an sdist by version and archive sha256, a Debian file by its package's
version), and the folder as a whole by `digest`: the sha256 of its sorted `sha256sum`
listing (corpora.tree_digest). A pinned source that is missing or another version, or a
folder that comes out different, makes the folder unavailable with the reason.

Usage: python bench/heldout_corpora.py OUT_DIR [NAME ...]
  builds the named folders (all by default) under OUT_DIR and prints, per folder, its file
  count, its digest and whether that equals the digest bench/heldout/README.md records.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpora import (  # noqa: E402
    DOC,
    MAN,
    Corpus,
    InstalledBytes,
    InstalledTree,
    PlainMan,
    Source,
    built,
    tree_digest,
    version_problem,
)
from bench.debs import Deb, DebJar  # noqa: E402
from bench.npm_packs import NpmPack  # noqa: E402
from bench.sdists import Sdist  # noqa: E402

HELDOUT_DIR = ROOT / "bench" / "heldout"
README = HELDOUT_DIR / "README.md"
DIGEST_MARK = "sorted `sha256sum` listing `"  # the README's words before a folder's digest


# The sdists the folders come from: version, sha256 of the archive PyPI serves, licence.
SDISTS = {
    "babel": (
        "2.16.0",
        "d1f3554ca26605fe173f3de0c65f750f5a42f924499bf134de6423582298e316",
        "BSD-3-Clause",
    ),
    "httpx": (
        "0.27.2",
        "f7c2be1d2f3c3c3160d441802406b206c2b76f5947b11115e6df10c6c65e66c2",
        "BSD-3-Clause",
    ),
    "pint": (
        "0.24.4",
        "35275439b574837a6cd3020a5a4a73645eb125ce4152a73a2f126bf164b91b80",
        "BSD-3-Clause",
    ),
    "arrow": (
        "1.3.0",
        "d4540617648cb5f895730f1ad8c82a65f2dad0166f57b75f3ca54759c4d67a85",
        "Apache-2.0",
    ),
    "black": ("24.10.0", "846ea64c97afe3bc677b761787993be4991810ecc7a4a937816dd6bddedc4875", "MIT"),
    "structlog": (
        "24.4.0",
        "b27bfecede327a6d2da5fbc96bd859f114ecc398a6389d664f62085ee7ae6fc4",
        "MIT OR Apache-2.0",
    ),
    "requests": (
        "2.32.3",
        "55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760",
        "Apache-2.0",
    ),
    "markdown": (
        "3.7",
        "2ae2471477cfd02dbbf038d5d9bc226d40def84b4fe2986e49b59b6b472bbed2",
        "BSD-3-Clause",
    ),
    "attrs": ("24.2.0", "5cfb1b9148b5b086569baec03f20d7b6bf3bcacc9a42bebf87ffaaca362f6346", "MIT"),
    "packaging": (
        "24.1",
        "026ed72c8ed3fcce5bf8950572258698927fd1dbda10a5e981cdf0ac37f4f002",
        "Apache-2.0 OR BSD-2-Clause",
    ),
    "urllib3": ("2.2.3", "e7d814a81dad81e6caf2ec9fdedb284ecc9c73076b62654547cc64ccdcae26e9", "MIT"),
    "psutil": (
        "6.1.0",
        "353815f59a7f64cdaca1c0307ee13558a0512f6db064e92fe833784f08539c7a",
        "BSD-3-Clause",
    ),
    "pytest": ("8.3.3", "70b98107bd648308a7952b06e6ca9a50bc660be218d53c257cc1fc94fda10181", "MIT"),
    "trio": (
        "0.27.0",
        "1dcc95ab1726b2da054afea8fd761af74bad79bd52381b84eae408e983c76831",
        "MIT OR Apache-2.0",
    ),
    "simpy": (
        "4.1.2",
        "76ef36b71e0436ba94e55febc001c78879e493a323f045bbcfbb0b216e9b1fbc",
        "MIT",
    ),
    "jinja2": (
        "3.1.4",
        "4a3aee7acbbe7303aede8e9648d13b8bf88a429282aa6122a993f0ac800cb369",
        "BSD-3-Clause",
    ),
    "mypy": (
        "1.13.0",
        "0291a61b6fbf3e6673e3405cfcc0e7650bebc7939659fdca2702958038bd835e",
        "MIT",
    ),
    "emcee": ("3.1.6", "11af4daf6ab8f9ca69681e3c29054665db7bbd87fd4eb8e437d2c3a1248c637d", "MIT"),
    "lz4": (
        "4.3.3",
        "01fe674ef2889dbb9899d8a67361e0c4a2c833af5aeb37dd505727cf5d2a131e",
        "BSD-3-Clause",
    ),
    "pymdown-extensions": (
        "10.12",
        "b0ee1e0b2bef1071a47891ab17003bfe5bf824a398e13f49f8ed653b699369a7",
        "MIT",
    ),
    "pythonnet": (
        "3.0.5",
        "48e43ca463941b3608b32b4e236db92d8d40db4c58a75ace902985f76dac21cf",
        "MIT",
    ),
}


def sdist_part(package: str, keep: tuple[str, ...], under: str = "") -> Sdist:
    version, sha256, licence = SDISTS[package]
    return Sdist(package, version, sha256, keep=keep, licence=licence, under=under)


def whole(package: str) -> Sdist:
    """The whole sdist, unpacked as is (its top folder cut off, like --strip-components=1)."""
    return sdist_part(package, ("*",))


def docs_of(package: str) -> Sdist:
    """The contents of the sdist's `docs/` folder, as the folder's top level."""
    return sdist_part(package, ("docs/*",), under="docs")


# 30 man pages saved as text, named as the labels name them (tar.1.txt); the packages are
# the Debian 12 versions of the machine the questions were written on. That folder was not
# kept, so how its pages were saved is inferred (`man -P cat`, as other helpers saved pages
# that day, byte for byte the same for the four pages both hold), not checked.
MAN_PAGES = (
    ("apt", "2.6.1", ("apt.8", "apt-cache.8", "apt-get.8", "apt-mark.8")),
    ("iproute2", "6.1.0-3", ("ss.8",)),
    ("e2fsprogs", "1.47.0-2", ("chattr.1",)),
    ("diffutils", "1:3.8-4", ("cmp.1", "diff.1", "diff3.1", "sdiff.1")),
    ("bsdextrautils", "2.38.1-5+deb12u3", ("column.1",)),
    ("util-linux", "2.38.1-5+deb12u3", ("dmesg.1", "fallocate.1", "flock.1")),
    ("dpkg", "1.21.22", ("dpkg.1", "dpkg-deb.1", "dpkg-query.1")),
    ("file", "1:5.44-3", ("file.1",)),
    ("procps", "2:4.0.2-3", ("free.1", "pgrep.1", "ps.1", "watch.1")),
    ("psmisc", "23.6-1", ("fuser.1",)),
    ("systemd", "252.38-1~deb12u1", ("journalctl.1", "systemctl.1")),
    ("less", "590-2.1~deb12u2", ("less.1", "lesskey.1")),
    ("make", "4.3-4.1", ("make.1",)),
    ("patch", "2.7.6-7", ("patch.1",)),
    ("tar", "1.34+dfsg-1.2+deb12u1", ("tar.1",)),
)
MAN_FOLDER = tuple(
    PlainMan(package, version, MAN / f"man{page[-1]}" / f"{page}.gz", f"{page}.txt")
    for package, version, pages in MAN_PAGES
    for page in pages
)

POLICY_HTML = Path("/usr/share/doc/debian-policy/policy.html")
POLICY_PAGES = (
    *(
        f"ap-{page}.html"
        for page in (
            "flowcharts", "license", "pkg-alternatives", "pkg-binarypkg", "pkg-conffiles",
            "pkg-controlfields", "pkg-diversions", "pkg-scope", "pkg-sourcepkg", "process",
        )
    ),
    *(
        f"ch-{page}.html"
        for page in (
            "archive", "binary", "controlfields", "customized-programs", "docs", "files",
            "maintainerscripts", "opersys", "relationships", "scope", "sharedlibs", "source",
        )
    ),
    "index.html",
    "upgrading-checklist.html",
)  # fmt: skip

REFERENCE = Path("/usr/share/debian-reference")
REFERENCE_PAGES = tuple(
    f"{page}.en.html" for page in ("index", "pr01", *(f"ch{n:02d}" for n in range(1, 13)), "apa")
)

INFO = Path("/usr/share/info")
INFO_MANUALS = (
    ("coreutils", "9.1-1", "coreutils.info.gz"),
    ("diffutils", "1:3.8-4", "diffutils.info.gz"),
    ("bc", "1.07.1-3+b1", "bc.info.gz"),
    ("ed", "1.19-1", "ed.info.gz"),
)

# `cp -rL /usr/share/doc/$p FOLDER/` for each: (package, version, other packages in it)
PYTHON3_DOC_ALSO = (
    ("python3-dev", "3.11.2-1+b1"),  # python-policy.html and its Sphinx files
    ("libjs-sphinxdoc", "5.3.0-4"),  # _static/*.js are links into these three
    ("libjs-underscore", "1.13.4~dfsg+~1.11.4-3"),
    ("libjs-jquery", "3.6.1+dfsg+~3.5.14-1"),
)
DOC_FOLDERS = (
    ("bash", "5.2.15-2+b8", ()),
    ("coreutils", "9.1-1", ()),
    ("gnupg", "2.2.40-1.1+deb12u2", ()),
    ("openssh-client", "1:9.2p1-2+deb12u6", ()),
    ("tar", "1.34+dfsg-1.2+deb12u1", ()),
    ("gdb", "13.1-3", ()),
    ("make", "4.3-4.1", ()),
    ("python3", "3.11.2-1+b1", PYTHON3_DOC_ALSO),
    ("apt", "2.6.1", ()),
    ("dpkg", "1.21.22", (("dpkg-dev", "1.21.22"),)),  # spec/*.txt are dpkg-dev's
    ("findutils", "4.9.0-4", ()),
    ("grep", "3.8-5", ()),
    ("sed", "4.9-1", ()),
    ("wget", "1.21.3-1+deb12u1", ()),
    ("xz-utils", "5.4.1-1", ()),
    ("zstd", "1.5.4+dfsg2-5", ()),
    ("systemd", "252.38-1~deb12u1", ()),
    ("tmux", "3.3a-3", ()),
    ("util-linux", "2.38.1-5+deb12u3", ()),
)

# nu25: the English HTML book, every page (its images, css and the other languages left
# out); the page list is read from the installed book, the digest pins what it must be.
HANDBOOK = Path("/usr/share/doc/debian-handbook/html/en-US")
HANDBOOK_PAGES = tuple(sorted(p.name for p in HANDBOOK.glob("*.html"))) or ("index.html",)
# nu26: man pages of sections 5 and 7 copied as installed (gzipped troff, read by ragd)
MAN_5_7 = (
    ("apt", "2.6.1", ("apt.conf.5", "sources.list.5")),
    ("dpkg-dev", "1.21.22", ("deb-control.5",)),
    ("libpam-modules", "1.5.2-6+deb12u1", ("limits.conf.5",)),
    ("manpages", "6.03-2", ("hosts.5", "nsswitch.conf.5", "resolv.conf.5")),
    ("manpages", "6.03-2", ("glob.7", "hier.7", "locale.7", "man.7", "regex.7", "signal.7")),
    ("mount", "2.38.1-5+deb12u3", ("fstab.5",)),
    ("openssh-client", "1:9.2p1-2+deb12u6", ("ssh_config.5",)),
    ("passwd", "1:4.13+dfsg1-1+deb12u1", ("passwd.5", "shadow.5")),
    ("systemd", "252.38-1~deb12u1", ("journald.conf.5", "logind.conf.5", "systemd.exec.5")),
    ("systemd", "252.38-1~deb12u1", ("systemd.service.5", "systemd.timer.5", "systemd.unit.5")),
    ("systemd", "252.38-1~deb12u1", ("bootup.7", "systemd.time.7")),
)


# nu33: three games' manuals and in-game help texts, from .debs this machine need not have
# installed: NetHack's Guidebook and the puzzle collection's manual (gzipped text, as
# shipped), Crawl's docs/ folder and its English description files (not the translations).
CRAWL = (
    "crawl-common",
    "2:0.28.0-1.1",
    "50c8f0091ba88538dde6585e5eddba02677bfe94d3ee4dc90a5bd3a788650f59",
)
GAME_MANUALS = (
    Deb(
        "nethack-common",
        "3.6.6-3+b2",
        "760e7020de1cec4943c125c97e93d3dd5978128cd22117ae91cd7cf640f617b9",
        ("usr/share/doc/nethack-common/Guidebook.txt.gz",),
        under="usr/share/doc/nethack-common",
        to="nethack",
    ),
    Deb(
        "sgt-puzzles",
        "20230122.806ae71-2",
        "aff833d3cc47e7eeb7785a0c7540fbdc1d1ba7af9d2bd5ae045c132ce2bc1cc6",
        ("usr/share/doc/sgt-puzzles/puzzles.txt.gz",),
        under="usr/share/doc/sgt-puzzles",
        to="sgt-puzzles",
    ),
    Deb(*CRAWL, ("usr/share/crawl/docs/*",), under="usr/share/crawl/docs", to="crawl/docs"),
    Deb(
        *CRAWL,
        ("usr/share/crawl/dat/descript/*.txt",),
        drop=("usr/share/crawl/dat/descript/*/*",),
        under="usr/share/crawl/dat/descript",
        to="crawl/descript",
    ),
)


# nu34: GnuCash's "Tutorial and Concepts Guide", DocBook XML as Debian ships it for the
# desktop's help viewer (/usr/share/help/C/gnucash-guide: index.docbook, one .xml file per
# chapter, its .dtd files and figures), from a .deb this machine need not have installed.
GNUCASH_GUIDE = Deb(
    "gnucash-docs",
    "4.13-1",
    "09979baf0ff8ddc1f9c39320c2c38ff606d6f4656e04742ff2dc51f2d562996f",
    ("usr/share/help/C/gnucash-guide/*",),
    under="usr/share/help/C/gnucash-guide",
)


# nu35: a code repository in another language: the regex crate 1.7.1's source as Debian
# ships it for Rust builds (/usr/share/cargo/registry/regex-1.7.1: README and notes, src/,
# examples, tests; its user documentation is in the code's doc comments), from a .deb this
# machine need not have installed.
REGEX_CRATE = Deb(
    "librust-regex-dev",
    "1.7.1-1",
    "9b8c87bb5aa87c0095f4cc36ed829c80e815c2f71337325bd6e25f8de1fba7f7",
    ("usr/share/cargo/registry/regex-1.7.1/*",),
    under="usr/share/cargo/registry/regex-1.7.1",
)


# nu36: a JavaScript package as npm installs it (node_modules/commander: README, the code in
# lib/, its TypeScript declarations in typings/), the tarball the npm registry serves.
COMMANDER = NpmPack(
    "commander", "11.1.0", "54cbc888e72368c77004e9fbb3065596910f5f9ffad23f01e78e31ad4da3d05e"
)


# nu37: a PHP library's source and its Debian doc folder: league/commonmark 2.3.9 as Debian
# ships it for PHP programs (usr/share/php: League/CommonMark/**/*.php, autoload.php) and
# usr/share/doc/php-league-commonmark (README, the changelogs, gzipped as shipped), from a
# .deb this machine need not have installed; the folder's top level is php/ and doc/.
COMMONMARK = (
    "php-league-commonmark",
    "2.3.9-1+deb12u1",
    "c702ba9fbe6727f011f25eba2bdb89871b56f37d811092e51089816df8eecd81",
)
COMMONMARK_FOLDER = (
    Deb(*COMMONMARK, ("usr/share/php/*",), under="usr/share/php", to="php"),
    Deb(*COMMONMARK, ("usr/share/doc/php-league-commonmark/*",), under="usr/share/doc", to="doc"),
)


# nu38: a Ruby web stack, Rack 2.2 and Sinatra 3.0 as Debian ships them for Ruby programs:
# each gem's code (rubygems-integration/all/gems/NAME-VERSION), its gemspec and its Debian
# doc folder (README and changelogs, gzipped as shipped), and rackup's man page; rack/ and
# sinatra/ at the top, each doc folder renamed doc/ (Rack's contrib/ images and css and
# /usr/bin/rackup, RubyGems' wrapper around bin/rackup, left out).
RACK = (
    "ruby-rack",
    "2.2.22-0+deb12u2",
    "7ba26a66f6981b48ac604c9b829de51bdfc5d5ec8f329cf823b0aab72f718354",
)
SINATRA = (
    "ruby-sinatra",
    "3.0.5-3+deb12u1",
    "7980ec9e78c5e48bf9062111c68296c183c8fb2bb0b522f85e3dc04129221323",
)
GEMS = "usr/share/rubygems-integration/all"


def ruby_gem(deb: tuple[str, str, str], gem: str, keep: tuple[str, ...]) -> tuple[Deb, ...]:
    """One gem as the folder holds it under `NAME/`: the kept parts of its installed tree
    (`keep`, relative to it), its gemspec beside them and its Debian doc folder as doc/."""
    name, tree, specs = gem_name(gem), f"{GEMS}/gems/{gem}", f"{GEMS}/specifications"
    doc = f"usr/share/doc/{deb[0]}"
    return (
        Deb(*deb, tuple(f"{tree}/{k}" for k in keep), under=tree, to=name),
        Deb(*deb, (f"{specs}/{gem}.gemspec",), under=specs, to=name),
        Deb(*deb, (f"{doc}/*",), under=doc, to=f"{name}/doc"),
    )


def gem_name(gem: str) -> str:
    """`rack-protection-3.0.5` → `rack-protection`: a gem's name may hold hyphens, and its
    version (then a platform, `-x86_64-linux`) starts at the first part that is a number."""
    parts = gem.split("-")
    version = next((i for i, part in enumerate(parts) if i and part[:1].isdigit()), len(parts))
    return "-".join(parts[:version])


RUBY_WEB = (
    *ruby_gem(RACK, "rack-2.2.22", ("lib/*", "example/*", "bin/*")),
    Deb(*RACK, ("usr/share/man/man1/rackup.1.gz",), under="usr/share/man/man1", to="rack/man"),
    *ruby_gem(SINATRA, "sinatra-3.0.5", ("*",)),
)


# nu39: a Perl module as Debian installs it: Log::Log4perl 1.57, the whole of what the
# package puts under /usr as the folder's top level (bin/l4p-tmpl; share/perl5/Log/**.pm
# with their POD; share/man/man3/Log::Log4perl*.3pm.gz, pod2man's pages of those modules,
# and man1/l4p-tmpl.1p.gz; share/doc/liblog-log4perl-perl: the CPAN Changes file as
# changelog.gz, copyright, examples/), from a .deb this machine need not have installed.
LOG4PERL = Deb(
    "liblog-log4perl-perl",
    "1.57-1",
    "2d317115495ca96ae84e0302bad77f37c82a3fd6610a86d6a6c1008c8f6d58c4",
    ("usr/*",),
    under="usr",
)


# nu40: a Lua library as Debian ships it: Penlight 1.13.1, its modules from lua-penlight
# (usr/share/lua/5.1/pl/*.lua, the code with its LDoc comments; the 5.2-5.4 folders are
# links to them) as pl/, and lua-penlight-dev's doc folder as doc/ (the Markdown manual in
# docs_topics/, gzipped as shipped but for 05-dates.md, examples/*.lua, README, changelogs,
# CONTRIBUTING.md, copyright) without docs/, LDoc's generated HTML of the same manual and
# modules; from .debs this machine need not have installed.
PENLIGHT = Deb(
    "lua-penlight",
    "1.13.1-3",
    "69918434ee650d06aa470d49ba05a1a16ae43e66b8216e135cc5075f7d5d9ff3",
    ("usr/share/lua/5.1/pl/*",),
    under="usr/share/lua/5.1/pl",
    to="pl",
)
PENLIGHT_DOC = "usr/share/doc/lua-penlight-dev"
PENLIGHT_DEV = Deb(
    "lua-penlight-dev",
    "1.13.1-3",
    "82ed88eec00b7fe695637e22fbbc9dd023632bf1d304c6ab4265fc24954e8f38",
    (f"{PENLIGHT_DOC}/*",),
    drop=(f"{PENLIGHT_DOC}/docs/*",),
    under=PENLIGHT_DOC,
    to="doc",
)


# nu41: a package of shell scripts as Debian ships it: etckeeper 1.18.20-1, its whole tree
# as `dpkg -x` lays it out (etc/, lib/, usr/ at the folder's top level): the suffix-less
# `#!/bin/sh` hooks under etc/etckeeper/*.d/ with their READMEs, usr/bin/etckeeper, the
# man page, the ikiwiki `.mdwn` docs and changelogs, completions, the systemd units, the
# apt hook, a breezy plugin. Regular files only: the one symlink (commit.d/20store-metadata
# to ../pre-commit.d/30store-metadata) is not written, as ragd does not follow it.
ETCKEEPER = Deb(
    "etckeeper",
    "1.18.20-1",
    "dfc7aeab85a2e2edc6a7f06ba012c56b2148ef36d06cce44d4c86dbcecb30602",
    ("*",),
)

# nu46: a Go module's source as Debian ships it for Go builds: cobra 1.6.1, the library for
# command-line programs (golang-github-spf13-cobra-dev, Architecture: all): the package's
# usr/share/gocode/src/github.com/spf13/cobra/ (35 .go files with their doc comments, the
# doc/ subpackage, go.mod, go.sum) and its usr/share/doc/ folder (changelog.Debian.gz,
# copyright), both at the folder's top level; Debian ships none of upstream's Markdown docs.
COBRA_SOURCE = "usr/share/gocode/src/github.com/spf13/cobra"
COBRA_DOC = "usr/share/doc/golang-github-spf13-cobra-dev"
COBRA = tuple(
    Deb(
        "golang-github-spf13-cobra-dev",
        "1.6.1-1",
        "4f5d20855133319beef3c5b49d3c21a0406f270bf94fb4b6f4d406b691283cb2",
        (f"{under}/*",),
        under=under,
    )
    for under in (COBRA_SOURCE, COBRA_DOC)
)


# nu51b: git's own design notes and how-tos as Debian ships them (git-doc, Architecture:
# all): usr/share/doc/git-doc/howto/ and technical/, AsciiDoc sources (`.txt`, the
# convention of git's Documentation/), most beside the HTML asciidoc rendered from them
# (all 16 how-tos, 20 of technical/'s 29), and technical/api-index.sh: 82 files.
GIT_DOC_DIR = "usr/share/doc/git-doc"
GIT_DOC = tuple(
    Deb(
        "git-doc",
        "1:2.39.5-0+deb12u3",
        "3c89668a11053a6bafade3de1f611f4613db31e082af63f43d8c5b69ad8795ec",
        (f"{GIT_DOC_DIR}/{folder}/*",),
        under=f"{GIT_DOC_DIR}/{folder}",
        to=folder,
    )
    for folder in ("howto", "technical")
)


# nu52a: 25 LaTeX package manuals as PDFs (texlive-latex-recommended-doc, Architecture:
# all), each copied from its package folder of usr/share/doc/texlive-doc/latex/ to the
# corpus's top level under its own name: the first folder of PDFs (newuser52).
LATEX_DOC = "usr/share/doc/texlive-doc/latex"
LATEX_MANUALS = (
    "beamer/beameruserguide.pdf",
    "booktabs/booktabs.pdf",
    "caption/caption.pdf",
    "caption/subcaption.pdf",
    "cite/cite.pdf",
    "crop/crop.pdf",
    "ctable/ctable.pdf",
    "eso-pic/eso-pic.pdf",
    "etoolbox/etoolbox.pdf",
    "fancyref/fancyref.pdf",
    "fancyvrb/fancyvrb-doc.pdf",
    "float/float.pdf",
    "fontspec/fontspec.pdf",
    "lineno/lineno.pdf",
    "listings/listings.pdf",
    "mathtools/empheq.pdf",
    "mathtools/mathtools.pdf",
    "microtype/microtype.pdf",
    "parskip/parskip.pdf",
    "pdfpages/pdfpages.pdf",
    "polyglossia/polyglossia.pdf",
    "ragged2e/ragged2e.pdf",
    "setspace/setspace-doc.pdf",
    "unicode-math/unicode-math.pdf",
    "xcolor/xcolor.pdf",
)
LATEX_PDFS = tuple(
    Deb(
        "texlive-latex-recommended-doc",
        "2022.20230122-3",
        "8bea1f81bf50354fa4f3046c2dbb82efba9b8520aca0b2ab12eed18554a66c11",
        (f"{LATEX_DOC}/{manual}",),
        under=f"{LATEX_DOC}/{manual.split('/')[0]}",
    )
    for manual in LATEX_MANUALS
)

# nu52b: the Ansible collection community.zabbix 1.9.3 as Debian's `ansible` package
# ships it among its collections (Architecture: all): the collection's whole folder, its
# roles' YAML, modules, molecule scenarios and changelog (newuser52).
ZABBIX_COLLECTION = "usr/lib/python3/dist-packages/ansible_collections/community/zabbix"
ANSIBLE_ZABBIX = Deb(
    "ansible",
    "7.7.0+dfsg-3+deb12u1",
    "625d3724fe2e75bfcdf8710a1549af473163cc5971350ac5d785c6ad1dec4af3",
    (f"{ZABBIX_COLLECTION}/*",),
    under=ZABBIX_COLLECTION,
)

# nu53a: another Ansible collection from the same package, community.mongodb 1.6.0: its
# roles' YAML (tasks, defaults, vars, molecule scenarios), modules, cache and lookup
# plugins, README and changelog (newuser53).
MONGODB_COLLECTION = "usr/lib/python3/dist-packages/ansible_collections/community/mongodb"
ANSIBLE_MONGODB = Deb(
    "ansible",
    "7.7.0+dfsg-3+deb12u1",
    "625d3724fe2e75bfcdf8710a1549af473163cc5971350ac5d785c6ad1dec4af3",
    (f"{MONGODB_COLLECTION}/*",),
    under=MONGODB_COLLECTION,
)

# nu53b: the Debian project's own documents as doc-debian ships them (Architecture: all):
# usr/share/doc/debian/ as is, the constitution and its nine historical versions, the
# social contract with the DFSG (and its two earlier versions), the manifesto, the bug
# tracker's guides and the mailing-list guide, plain text, most gzipped (newuser53).
DEBIAN_DOCS = Deb(
    "doc-debian",
    "11.3+nmu1",
    "b9bff49f22b334cb6fedc071d81669e72cc2fa0dcd65e110785f69d9941f2773",
    ("usr/share/doc/debian/*",),
    under="usr/share/doc/debian",
)


# nu54a: generated API reference HTML, Apache Commons Lang 3.12.0's javadoc (JDK 17's) as
# Debian ships it (libcommons-lang3-java-doc, Architecture: all): from its api/ folder the
# overview and index pages and the 53 pages of the org.apache.commons.lang3 package
# itself (its subpackages, class-use/, src-html/, the scripts and the 1.7 MB index-all.html
# left out), at their paths under api/ (newuser54).
COMMONS_LANG_API = "usr/share/doc/libcommons-lang3-java/api"
COMMONS_LANG_PAGES = (
    "index.html",
    "overview-summary.html",
    "allpackages-index.html",
    "allclasses-index.html",
    "constant-values.html",
    "deprecated-list.html",
    "org/apache/commons/lang3/*.html",
)
COMMONS_LANG_JAVADOC = Deb(
    "libcommons-lang3-java-doc",
    "3.12.0-2+deb12u1",
    "d5e3456b97dbab73c7f6f39997ae108c515cc2a4182448a5c3e659ea3a5777a3",
    tuple(f"{COMMONS_LANG_API}/{page}" for page in COMMONS_LANG_PAGES),
    drop=(f"{COMMONS_LANG_API}/org/apache/commons/lang3/*/*",),
    under=COMMONS_LANG_API,
)


# nu55a: generated API reference HTML of a C++ library, Doxygen's (member tables,
# signatures, "More..." links, the navigation tree's scripts): JsonCpp 1.9.5's reference as
# Debian ships it (libjsoncpp-doc, Architecture: all), its whole doc folder as is
JSONCPP_DOXYGEN = Deb(
    "libjsoncpp-doc",
    "1.9.5-4",
    "641357a275fd17c2f47ed2445c0ca7bd1b727905e3e837ece95b2b903c8d6e00",
    ("usr/share/doc/libjsoncpp-doc/*",),
    under="usr/share/doc/libjsoncpp-doc",
)

# nu55b: a folder of Jupyter notebooks, statsmodels 0.13.5's example notebooks as Debian
# ships them (python-statsmodels-doc, Architecture: all; saved without outputs): the
# examples/notebooks/ folder as is (the statsmodels sdist cannot be fetched with
# `pip download --no-binary :all:`: its build dependencies do not build here)
STATSMODELS_NOTEBOOKS = Deb(
    "python-statsmodels-doc",
    "0.13.5+dfsg-7",
    "4167a3e13347343b9f0a6677fc804ecad80dd735d17bc051829610f6f1bc2afb",
    ("usr/share/doc/python-statsmodels-doc/examples/notebooks/*",),
    under="usr/share/doc/python-statsmodels-doc/examples/notebooks",
)


# nu56a: EPUB books, the first folder of them here: the three manuals Debian Edu ships as
# EPUB in debian-edu-doc-legacy-en (Architecture: all): Audacity's and Rosegarden's user
# manuals and Debian Edu's ITIL manual, the package's doc folder's .epub files only (its
# HTML, PDF and images of the same manuals left out) (newuser56).
EDU_LEGACY_EPUBS = Deb(
    "debian-edu-doc-legacy-en",
    "2.12.23~deb12u1",
    "fff13b03dd0bb5265179da18fb8b62d032bc9f764c6ccc5be9a98e616fbde0a9",
    ("usr/share/doc/debian-edu-doc-legacy-en/*.epub",),
    under="usr/share/doc/debian-edu-doc-legacy-en",
)

# nu56b: Org-mode documents, the first folder of them here: Postmodern's (the Common Lisp
# PostgreSQL library's) manual as Debian ships it in cl-postmodern (Architecture: all): the
# 12 gzipped .org sources of its doc folder (the HTML exported from them, the README,
# changelogs and css left out) (newuser56).
POSTMODERN_ORG = Deb(
    "cl-postmodern",
    "20211113.git9d4332f-3",
    "7c02bb5cc9b323bddd97e1b5feca0b5d1910d6de12b1af9a48c47dcf01a1a7ad",
    ("usr/share/doc/cl-postmodern/*.org.gz",),
    under="usr/share/doc/cl-postmodern",
)


# nu57a: office documents, the first folder of them here: a mix of OpenDocument text, Word
# and Impress files from four Debian packages (all Architecture: all): LibreOffice's Math
# Guide and Dmaths' English user guide as libreoffice-dmaths ships them (math/), the Debian
# Live manual in English (live-manual/), TopMSV's developer notes in Word (topmsv/, their
# jsdoc HTML left out) and two mapsforge talks (mapsforge/; ragd does not read .odp)
# (newuser57).
DMATHS_GUIDES = "usr/lib/libreoffice/share/extensions/dmaths/Fichiers/userguides"
TOPMSV_DOC = "usr/share/toppic/topmsv/doc"
MAPSFORGE_TALKS = "usr/share/doc/libmapsforge-java/docs/presentations"
OFFICE_DOCUMENTS = (
    Deb(
        "libreoffice-dmaths",
        "4.4.0.0+dfsg1-2",
        "6e37300f5e32d83dae833d3d18e8be75a4288b7d545477aef5d1a80829da8feb",
        (f"{DMATHS_GUIDES}/user_guide_en.odt", f"{DMATHS_GUIDES}/MG40-MathGuide.odt"),
        under=DMATHS_GUIDES,
        to="math",
    ),
    Deb(
        "live-manual-odf",
        "2:20151217.2",
        "f197134bd454cde3ccae1c4dc2b8abe2eaffe54bbf13882e630044723db1a6af",
        ("usr/share/doc/live-manual/odt/live-manual.en.odt",),
        under="usr/share/doc/live-manual/odt",
        to="live-manual",
    ),
    Deb(
        "toppic-common",
        "1.5.3+dfsg1-1",
        "5b9f837825031e99098adbcde59a76d7e58f60a99081a8ff6cdaac47dc2b83c7",
        (f"{TOPMSV_DOC}/*.docx",),
        under=TOPMSV_DOC,
        to="topmsv",
    ),
    Deb(
        "libmapsforge-java-doc",
        "0.17.0+dfsg.1-2",
        "74a1120e3dc4a65c35f8cf5a566b73a4e265d0ee0bbc685315413c3d03d5683b",
        tuple(
            f"{MAPSFORGE_TALKS}/{talk}.odp"
            for talk in ("State of the Map 2010", "GTUG November 2010")
        ),
        under=MAPSFORGE_TALKS,
        to="mapsforge",
    ),
)

# nu57b: a wiki of short, cross-linked notes: ikiwiki's own pages as Debian ships them
# (ikiwiki, Architecture: all): every English .mdwn page under usr/share/ikiwiki (the
# basewiki's help pages, the directives underlay, the blog and software-site example
# wikis, the smileys page), the translations under locale/ and po/, css, images and
# templates left out (newuser57).
IKIWIKI_PAGES = Deb(
    "ikiwiki",
    "3.20200202.3-1",
    "3fd2d1a04bbc0a2b5acd1b9f3f5383d24137e5cfd0da6836c43ca8278d30150b",
    ("usr/share/ikiwiki/*.mdwn",),
    drop=("usr/share/ikiwiki/locale/*",),
    under="usr/share/ikiwiki",
)

# nu58a: AsciiDoc sources, the first folder of them here: FreeRADIUS's documentation
# written for Antora, as Debian ships it in freeradius (Architecture: amd64, its doc folder
# the same on every architecture): the whole antora/ tree, 61 pages and 17 gzipped ones,
# the four nav.adoc, a partial, antora.yml and three images (newuser58).
FREERADIUS_ANTORA = Deb(
    "freeradius",
    "3.2.1+dfsg-4+deb12u1",
    "be127bbe63df6c9ae878da2a940c300dcc2af1c003ec489dd73e9461108d8565",
    ("usr/share/doc/freeradius/antora/*",),
    under="usr/share/doc/freeradius/antora",
)

# nu58b: LaTeX sources, the first folder of .tex here: Cadabra 1.46's help pages as Debian
# ships them in cadabra (Architecture: amd64): general.tex and the algorithms/, properties/
# and reserved/ pages, 178 files (its changelogs and copyright left out) (newuser58).
CADABRA_HELP = Deb(
    "cadabra",
    "1.46-6",
    "c90bb32a91d18e8e0d98666d01ddd1477205001950c3904ad8fb1e153d7149c0",
    ("usr/share/doc/cadabra/*.tex",),
    under="usr/share/doc/cadabra",
)


# nu59a: GNOME Mallard help pages, the first folder of *.page here: the English (C/) help
# of three GNOME applications as Debian 12 ships it for Yelp (evince-common, gedit-common,
# gnome-terminal-data, all Architecture: all), each application's whole C/ folder (pages,
# figures/, media/) under the application's name (newuser59).
HELP_C = "usr/share/help/C"
GNOME_APP_HELP = tuple(
    Deb(package, version, sha256, (f"{HELP_C}/{app}/*",), under=f"{HELP_C}/{app}", to=app)
    for package, version, sha256, app in (
        (
            "evince-common",
            "43.1-2+deb12u1",
            "777ea7d094db2acd7b385e272b0ba6cf03c7e45d574e6f2c689b507de3d95dbb",
            "evince",
        ),
        (
            "gedit-common",
            "44.2-1",
            "3d9446b4ddcc7db0df41d9ee7f71b60a1d29ad688b6acbe04fe6fbea3461d5ef",
            "gedit",
        ),
        (
            "gnome-terminal-data",
            "3.46.8-1",
            "7702598bf2f81b6ec713d14867e367d9f5f2f91580c233db0dadc4c31c2f227d",
            "gnome-terminal",
        ),
    )
)

# nu59b: HTML books made by mdBook, the first here (every page carries the book's whole
# table of contents as a sidebar, a menu bar, Previous/Next links; print.html repeats every
# chapter): the rustdoc book and the Rust edition guide as Debian 12 ships them in rust-doc
# (Architecture: all), each book's folder as is under its own name; the packaged symlinks
# (fonts/, highlight.js, MathJax.js, font-awesome.min.css, into other packages) are not
# regular files and are left out (newuser59).
RUST_DOC_HTML = "usr/share/doc/rust-doc/html"
RUST_MDBOOKS = tuple(
    Deb(
        "rust-doc",
        "1.63.0+dfsg1-2",
        "96ef96fe6df87d939ca713bd7df3d15c2b778ccb892eca025c4ee504146f697b",
        (f"{RUST_DOC_HTML}/{book}/*",),
        under=f"{RUST_DOC_HTML}/{book}",
        to=book,
    )
    for book in ("rustdoc", "edition-guide")
)


# nu60b: a TypeScript library as npm installs it (node_modules/mobx: README, CHANGELOG, its
# TypeScript sources in src/, and dist/: the compiled bundles, their source maps and .d.ts
# declarations, which repeat src/), the tarball the npm registry serves (newuser60).
MOBX = NpmPack("mobx", "6.13.5", "b85a7f765065c081724a7c49e91f59950151607b2f1c5a77c8ec4231f7129a1b")

# nu61a: a manual as Texinfo's HTML output, the first here (makeinfo splits it one node a
# page, each with a Next/Previous/Up header above and below, menus, and redirect stubs for
# nodes inside a page): GNU Aspell 0.60.8's user manual as Debian 12 ships it in
# aspell-doc (Architecture: all), its aspell.html/ folder as is (newuser61).
ASPELL_MANUAL_HTML = Deb(
    "aspell-doc",
    "0.60.8-4",
    "6c768a7131085af8b9e59e9c1810816a947510edf3a92e589cf6b8a47f33bf71",
    ("usr/share/doc/aspell-doc/aspell.html/*",),
    under="usr/share/doc/aspell-doc/aspell.html",
)

# nu61b: Emacs Lisp, the first here: company-mode 0.9.13, Emacs's completion framework, as
# Debian 12 ships it in elpa-company (Architecture: all), its elpa-src/company-0.9.13/
# folder as is: 40 .el files, the code with its ;;; Commentary: and docstrings (newuser61).
COMPANY_ELPA = Deb(
    "elpa-company",
    "0.9.13-2",
    "a24e3af70f2d690146ccf560049e1ad5b7892ac121c7811c807c4558ef1712ab",
    ("usr/share/emacs/site-lisp/elpa-src/company-0.9.13/*",),
    under="usr/share/emacs/site-lisp/elpa-src/company-0.9.13",
)

# nu62a: C++ headers of a header-only library, the first here (nu55a was Doxygen's HTML of
# one): CLI11 2.1.2, the command-line parser, as Debian 12 ships it in libcli11-dev
# (Architecture: all), its whole tree as `dpkg -x` lays it out: usr/include/CLI/ (15 .hpp
# with their /// comments), the CMake and pkg-config files, the upstream changelog.gz
# (newuser62).
CLI11_HEADERS = Deb(
    "libcli11-dev",
    "2.1.2+ds-1",
    "f1f6ee9ec053e0e0bcec47345e241b6a8ee006321248b4329e9ce88d2b4b64a8",
    ("*",),
)

# nu62b: Scheme, the first here: guile-lib 0.2.7, a library of Guile modules (logging,
# unit tests, HTML parsing, string and math utilities), as Debian 12 ships it in
# guile-library (amd64: the compiled .go files beside the sources), its
# usr/share/guile/site/ folder as is: 30 .scm files, the code with its Commentary and
# docstrings (newuser62).
GUILE_LIB_SOURCES = Deb(
    "guile-library",
    "0.2.7-4",
    "d08950680faec861ec06f5b3550ccf93190e496403b7cce71cd7e8cec344e099",
    ("usr/share/guile/site/*",),
    under="usr/share/guile/site",
)


# nu63a: OCaml, the first here: cmdliner 1.1.1, the library for declarative command lines,
# as Debian 12 ships it in libcmdliner-ocaml-dev (amd64), its whole tree as `dpkg -x` lays
# it out: the documented interface cmdliner.mli beside the compiled .cm* and .a files, the
# examples/*.ml, README.md, the changelogs and ocamldoc's HTML of the API (newuser63).
CMDLINER_OCAML = Deb(
    "libcmdliner-ocaml-dev",
    "1.1.1-1",
    "4b05fa580a02cc8151bccace52a1623d430e1017608443cc70eda7465a1416c8",
    ("*",),
)

# nu63b: Haddock HTML, the first here: split 0.2.3.5, Haskell's list-splitting combinators,
# as Debian 12 ships its reference in libghc-split-doc (Architecture: all), its whole tree
# as `dpkg -x` lays it out: the module pages, the hyperlinked source pages under src/, the
# index, Hoogle's split.txt, the .haddock interface file (newuser63).
SPLIT_HADDOCK = Deb(
    "libghc-split-doc",
    "0.2.3.5-1",
    "b2124f3e7101fa9271fb454aa18b64ac4772d5e4bf58118853dd45bfe888b101",
    ("*",),
)


# nu64a: groff documents that are not man pages, the first here: the roff sources of the
# papers and examples groff 1.22.4 ships (the -me intro and reference, the pic manual in
# -ms, an -ms web page, a -me grn example, an -mm letter, mom's samples, hdtbl's tables), as
# Debian 12 ships them in groff (amd64), without their PostScript, PDF, text and HTML
# renditions, under usr/share/doc/groff-base's own paths (newuser64).
GROFF_DOCUMENTS = Deb(
    "groff",
    "1.22.4-10",
    "c30d56dad45ab7fe8d57f545381203297b23fabd7475e5acd133f15dcaef2355",
    tuple(
        f"usr/share/doc/groff-base/*.{suffix}"
        for suffix in ("me", "me.gz", "ms.gz", "mm", "mom", "roff", "roff.gz")
    ),
    under="usr/share/doc/groff-base",
)

# nu64b: Tcl, the first here: six tcllib 1.21 modules (cmdline, csv, fileutil, inifile,
# json, log) as Debian 12 ships them in tcllib (Architecture: all): their folders under
# usr/share/tcltk/tcllib1.21 as is and their man pages (man3, `.3tcl.gz`), under
# usr/share's own paths (newuser64).
TCLLIB_MODULES = Deb(
    "tcllib",
    "1.21+dfsg-1",
    "6bf4cbb66b52d47dcf02e8de4469597d25dc475668d49f8b7f3f3135e3eb2d08",
    (
        *(
            f"usr/share/tcltk/tcllib1.21/{module}/*"
            for module in ("cmdline", "csv", "fileutil", "inifile", "json", "log")
        ),
        *(
            f"usr/share/man/man3/{page}.3tcl.gz"
            for page in (
                "cmdline",
                "csv",
                "fileutil",
                "multi",
                "multiop",
                "ini",
                "json",
                "json_write",
                "log",
                "logger",
                "loggerAppender",
                "loggerUtils",
            )
        ),
    ),
    under="usr/share",
)

# nu65a: Erlang, the first here: the sources of OTP 25's EUnit (the unit-test framework,
# documented in its edoc `%% @doc` comments), as Debian 12 ships them in erlang-src
# (Architecture: all): lib/eunit-2.8.1/src as is, `.erl` and `.hrl` (newuser65).
EUNIT_SOURCES = Deb(
    "erlang-src",
    "1:25.2.3+dfsg-1+deb12u4",
    "52fc8fbd533e0d094514ba54ff7b7a3244b2cf02a4905cf36dfeccb346d3479b",
    ("usr/lib/erlang/lib/eunit-2.8.1/src/*",),
    under="usr/lib/erlang/lib/eunit-2.8.1",
)

# nu65b: R Markdown, the first here: dplyr 1.0.10's nine vignettes, their `.Rmd` sources
# and the `.R` code R tangled out of them, as Debian 12 ships them in r-cran-dplyr
# (amd64), their HTML renditions left out (newuser65).
DPLYR_VIGNETTES = Deb(
    "r-cran-dplyr",
    "1.0.10-1",
    "0fab87f28f87bf17c8356e24ebcf00db295bceb9b2ba38e05413c7347581a15f",
    ("usr/lib/R/site-library/dplyr/doc/*.Rmd", "usr/lib/R/site-library/dplyr/doc/*.R"),
    under="usr/lib/R/site-library/dplyr",
)

# nu66a: Vim help files, the first here: Vim 9.0's user manual (`usr_*.txt`, read with
# `:help usr_toc`), as Debian 12 ships it in vim-runtime (Architecture: all) (newuser66).
VIM_USER_MANUAL = Deb(
    "vim-runtime",
    "2:9.0.1378-2+deb12u2",
    "6a3dd2317a593742cb247f3494d986b3127887dbe1449253b8efa6112289854e",
    ("usr/share/vim/vim90/doc/usr_*.txt",),
    under="usr/share/vim/vim90",
)

# nu66b: Common Lisp, the first here: the sources of Alexandria, the utility library, as
# Debian 12 ships them for Lisp programs in cl-alexandria (Architecture: all): its
# `.lisp` files and ASDF system definitions as is (newuser66).
ALEXANDRIA_SOURCES = Deb(
    "cl-alexandria",
    "20211025.gita67c3a6-1",
    "032e9fde718f9b2aac5bb2c64a39502a949694ad1a995b00c1862ed231271214",
    ("usr/share/common-lisp/source/alexandria/*",),
    under="usr/share/common-lisp/source",
)


# nu70a: CSV data with its descriptions, the first here: the small datasets scikit-learn
# bundles (`data/`: iris, wine, breast cancer, Boston house prices, Linnerud, and the
# gzipped diabetes and digits tables) and the reST pages describing them and the ones it
# downloads (`descr/`), as Debian 12 ships them in python3-sklearn (Architecture: all),
# their empty `__init__.py` left out (newuser70).
SKLEARN_DATASETS = Deb(
    "python3-sklearn",
    "1.2.1+dfsg-1",
    "ca0c6be401d14871c7e93cfdd8d1f561595dc65e6e2ad2501d568aee7f7efc58",
    (
        "usr/lib/python3/dist-packages/sklearn/datasets/data/*",
        "usr/lib/python3/dist-packages/sklearn/datasets/descr/*",
    ),
    drop=("*/__init__.py",),
    under="usr/lib/python3/dist-packages/sklearn/datasets",
)

# nu70b: Clojure, the first here: core.async's sources, which Debian 12's
# libcore-async-clojure (Architecture: all) ships only inside its jar, under `src/`, and
# the examples and README of its doc folder under `doc/` (newuser70).
_CORE_ASYNC = (
    "libcore-async-clojure",
    "1.5.648-1",
    "95df0a203c7e7cd40442c32de746ee8bb36d23a0e92dbb580fd4944cb98f7802",
)
CORE_ASYNC_SOURCES = (
    DebJar(
        *_CORE_ASYNC,
        ("usr/share/java/core.async-1.5.648.jar",),
        to="src",
        members=("clojure/*", "cljs/*"),
    ),
    Deb(
        *_CORE_ASYNC,
        (
            "usr/share/doc/libcore-async-clojure/examples/*",
            "usr/share/doc/libcore-async-clojure/README.md.gz",
        ),
        under="usr/share/doc/libcore-async-clojure",
        to="doc",
    ),
)


# nu71a: Crystal, the first here: the HTTP part of Crystal 1.6's standard library (client,
# server and its handlers, headers, cookies, form data, WebSocket; documented in its `#`
# comments), as Debian 12 ships it in crystal (amd64): `http.cr` and the `http/` folder as
# is (newuser71).
CRYSTAL_HTTP = Deb(
    "crystal",
    "1.6.0+dfsg-3",
    "7d57ba98720f135dfbc75678d66cad40bd63c3880743b9f99182251229c34fc7",
    ("usr/lib/crystal/lib/http/*", "usr/lib/crystal/lib/http.cr"),
    under="usr/lib/crystal/lib",
)

# nu71b: Nim, the first here: the collections modules of Nim 1.6's standard library
# (tables, sets, sequtils, deques, lists, critbits, heapqueue …, documented in their `##`
# comments), as Debian 12 ships them in nim (amd64): `lib/pure/collections/` as is
# (newuser71).
NIM_COLLECTIONS = Deb(
    "nim",
    "1.6.10-2",
    "1861cfaaa3e085fb091a1e0b768a2c0d2ace17796b56964b88326fe3468ac399",
    ("usr/lib/nim/lib/pure/collections/*",),
    under="usr/lib/nim/lib/pure",
)

# nu73a: Vim script, the first here: vim-airline 0.11, the status line plugin, as Debian 12
# ships it for Vim (Architecture: all): the plugin's folder `usr/share/vim-airline/`
# (autoload/, plugin/, doc/) as is, its `t/` test specs left out (newuser73).
VIM_AIRLINE = Deb(
    "vim-airline",
    "0.11-2",
    "f702b8b1a032a023cf8a30381b28e395ce3764021ee0b9e096d8ae14636dee84",
    ("usr/share/vim-airline/*",),
    drop=("usr/share/vim-airline/t/*",),
    under="usr/share/vim-airline",
)

# nu73b: D, the first here: the containers and digests of Phobos 2.100, D's standard
# library (documented in its `/** … */` and `///` ddoc comments), as Debian 12 ships them
# with LDC 1.30 (amd64): `std/container/` and `std/digest/` as is (newuser73).
PHOBOS_CONTAINERS_DIGESTS = Deb(
    "libphobos2-ldc-shared-dev",
    "1:1.30.0-1+b1",
    "ff59faddd85148f68bc2496a412a71fe6890a18fd71d8f58d537bc3221f57b6f",
    (
        "usr/lib/ldc/x86_64-linux-gnu/include/d/std/container/*",
        "usr/lib/ldc/x86_64-linux-gnu/include/d/std/digest/*",
    ),
    under="usr/lib/ldc/x86_64-linux-gnu/include/d/std",
)


# nu75a: C#, the first here: the runtime of Python.NET 3.0.5 (pythonnet, which embeds
# Python in a .NET program and lets Python use .NET; documented in its `///` XML doc
# comments), from its sdist: `src/runtime/`'s top folder (the engine, the converter, the
# exceptions), `PythonTypes/` (PyObject, PyDict, PyList, PyModule …) and `Codecs/`, the
# parts a C# program calls; its interop internals (Native/, Types/, StateSerialization/,
# Util/ …) left out (newuser75).
PYTHONNET_RUNTIME = Sdist(
    "pythonnet",
    SDISTS["pythonnet"][0],
    SDISTS["pythonnet"][1],
    keep=("src/runtime/*",),
    drop=tuple(
        f"src/runtime/{part}/*"
        for part in (
            "CollectionWrappers",
            "Mixins",
            "Native",
            "Properties",
            "Resources",
            "StateSerialization",
            "Types",
            "Util",
        )
    ),
    licence=SDISTS["pythonnet"][2],
    under="src/runtime",
)

# nu75b: gtk-doc HTML, the first here: the cairo 1.16 API reference (the 2D graphics
# library's drawing context, paths, patterns, surfaces, fonts, transformations; one page a
# section, with its synopsis table, each function's signature, parameters and returns)
# as Debian 12 ships it for Devhelp (Architecture: all): `usr/share/gtk-doc/html/cairo/`
# as is (newuser75).
CAIRO_GTK_DOC = Deb(
    "libcairo2-doc",
    "1.16.0-7",
    "8864dbe54bb84a54521b3211898b1eff5074ba02a9c81897cd646b33db8fe4f5",
    ("usr/share/gtk-doc/html/cairo/*",),
    under="usr/share/gtk-doc/html/cairo",
)


@dataclass(frozen=True)
class PackageTree(Source):
    """The files one Debian package installed under `path`, as `dpkg-query -L` lists them,
    at the folder's top level: what `dpkg-deb -x` of its .deb holds there. Not the whole
    folder: another package can install into the same one (sqlite3 puts its changelogs and
    copyright into /usr/share/doc/sqlite3, next to sqlite3-doc's pages)."""

    def problem(self) -> str | None:
        if (wrong := version_problem(self.package, self.version)) is not None:
            return wrong
        if not self.path.is_dir():
            return f"{self.path} ({self.package}) is missing"
        return None

    def files(self) -> Iterator[tuple[str, bytes]]:
        listed = subprocess.run(
            ["dpkg-query", "-L", self.package], capture_output=True, text=True, check=True
        ).stdout.splitlines()
        for line in sorted(listed):
            path = Path(line)
            if path.is_relative_to(self.path) and path.is_file():  # directories are listed too
                yield path.relative_to(self.path).as_posix(), path.read_bytes()


# Each folder's digest (corpora.tree_digest), as bench/heldout/README.md records it: every
# folder but babel and man (not kept) was rebuilt and found equal to the one the questions
# were asked of, file for file.
DIGESTS = {
    "babel": "cf143c54a7622264f1144afb9c93430c4e04495709844a58cb088be850af0629",
    "httpx": "4bb57a53eff9e1315df5601fbb1494c4a12cadee78c165d9aa87e5eab13fbed7",
    "man": "1e7e65d4f559ca08c1bc90c60c3f4e8a851eb2fb09fed19eca76e976ccf2a30a",
    "nu14a": "f197df8bcb24d722bd9c586464f794cae84fd7a794dd4592ae1ce955a0fe972f",
    "nu14b": "fcaac5ade85484fa8b89ebd74e4c615edd22c4d0bfe34f177c365789a417bbd7",
    "nu14c": "1831de344afacdfcb8745a2b404dbb108191e081ca1c11436dc4badf2c7104dd",
    "nu14d": "f2172c2b5a5856812e2adebdb246e9617fd82da46c0fe0e2ec526e35959806d6",
    "nu15": "e0556a2de5a6a19995b2fefa22ed7e10ec9dfecdd624950a289b61225ea4817c",
    "nu16": "66d645f130b3545f0a9255b6d82b614e9eee938e741ff9cbc5d1c4259d9c0924",
    "nu17": "ceda315ceadad8384ad258222f1c182fa8368346c024c43cbdfce8961a85aed3",
    "nu18": "ce6aee8a7a8980d40c5b6449f294f639fb197c6902453dcafefa8d0e31303e17",
    "nu19": "6bafdd41e0ec040197a5f1663570362885fbb7a0a40227573ce13fe3da64114d",
    "nu20": "725d6c27302ec2ec8822cb83060599882ac43080494c19eda75126bbd7188137",
    "nu21": "bffbc6b56a93a8c0c8de01c1eae0659bec586d116d3ab94bd12b1cce4ed5b553",
    "nu22": "2afe3ead6f9dbbbf28daa6b6167eb3503fc030d06c022802cd32ce9c1bd592ec",
    "nu23": "90ef37dc7ba314062ea1896a636e13d4ee48626f13a786082573a08a3caa411d",
    "nu24": "6226faa61fab1ed5a6fba63773a6accf518e95e8eab63fb1cba7095fefecc3e8",
    "nu25": "9d5cc99816f11f99e9b0580c7760ba9ec6c19488fee553a6b2160379063d211f",
    "nu26": "9aa27ca0835e95241dcd4267dea70008da9094ed61d94e57fca7617423d35315",
    "nu27": "ea5f78502b059c0c6145af33d58269066847ca2e317d3199c2255b13c1d23cbf",
    "nu28": "a5e8c89f3d7a34de39ccb762593c7fbdf499a245f015e99c7dadc8aa224f8ce8",
    "nu29": "679a9ff494b6fa03edc443c2f628ce0cd3249ecb6de1d667d443b06404fdef21",
    "nu30": "b0258bfbf492e5095b64d99d83660437fa5f546948199cdd03377ad269bf1cab",
    "nu31": "be0538cbfedc088f13ef2e3035911bb1f7d8a79edbe717ef71840effe43a8a6d",
    "nu32": "e7dd62de3280172192fe3fc8f4165ce23ca6a84db05f05503f6a286869250689",
    "nu33": "45a222fbc24724e1191a8a37ab364e43496d4fd2cd1d1476cf607eda73728a7e",
    "nu34": "f7463b402e246e97e403d4db45fe78734e55fed9750b037c91198ac33227566e",
    "nu35": "12453f709bce9b677905d13ad30fb221bedfd0cd5bc1c7e76e6bdaa2d32b3492",
    "nu36": "86ac5f74a2eb67031a01459d4f0b0756347ae1e0ccfc3020e8f633d5f1fda5f3",
    "nu37": "ffeb6a342970232e5f71a48007d40cb4d3fd5e766cfbdcd4ce3c516a043ce860",
    "nu38": "fe35ffa01e95a88b4e5ff3fd2f1ac865a0ee352b9453ecfc2f93762781e33a35",
    "nu39": "03498848211e0c958a7fa34d141bce4faab51efc09e108066f0855387c23cea7",
    "nu40": "568658994daf9c8848e6eda554dbd14f129d2b4bde0929c616bc44cd10dfcd9c",
    "nu41": "a5a3ba0f87761aceaf7948a8f27cbb800978056599ac5bcd983b299f00f1720d",
    "nu46": "6d5485f7d7e6aafd58cad2a9f04ffb271c542b93361ebd945c4a3291858fd105",
    "nu51a": "3fc7606a997a876d23e3edcba160f4ea4a5e1a12c8c54a711e19ecd841d4df37",
    "nu51b": "7e8a64b5894f6cdf71da647969ddbdb7e8474d780b59863046da888f58119099",
    "nu52a": "02d96b4135af9a3039d84090d390b7c5e120cc6efc1a1350921339dd78d434b5",
    "nu52b": "a93b4f4ac8efaca8db2569c8d4f58e3e7f63380484113bcbe858ace0b959a7a9",
    "nu53a": "6feb6b5d1f11e8b47eb6f716cec00106c4b7b723c945722ae1c767158c03e489",
    "nu53b": "51c5db0e03e521737b26772679a8f6bde01c333fe87bed75ebbb668d3fda6022",
    "nu54a": "e394e8fc7ed308a0dc49bb86b815a32ea3a3908f1259f5e404cf7ffd42a8fae9",
    "nu54b": "6575852d4f1937cca37f8de64b88f14e633e5dc3e8d645cb6d3b1875bf6fc79b",
    "nu55a": "e3af63229f6be36165e18247382dc03508a1241c4d13095340ce7e2180c53096",
    "nu55b": "3a1fde8647bf3804266dc6ee3d4ddb0e49fbfbb6244b60aa1179127d95607937",
    "nu56a": "dd2c1d103213b754e210ae01e8831b419e6e814254ecdbaf184898a51dd82c7b",
    "nu56b": "c68acb5f47da90fa931dfd7c2d6c3abfa1fd8554c6532173c7335cb5c2747d22",
    "nu57a": "7100fc891a5ca715d54ec448aab5bf0698ef24cd12f3cb64452b1c46920630e0",
    "nu57b": "aa4f05d7556ddb23eea38738abdb1696a76cb84807ba63208fac15e711e5d7ac",
    "nu58a": "29f2c0b2e373c724fc14649e5e6f6b9fcb6d4beabb05f6d6cd8d52840d5e414d",
    "nu58b": "dba1f0813e91e66161195cb1f54bea4bd90b0978f3e3d787b0da3d1072b8bd4c",
    "nu59a": "a9868f58976b5ed6dd1c59f1298ebd7657aa57d0f68b75ab13498fb2aaffbd6b",
    "nu59b": "ace2a4cb6e91747a45074f0876cace3a12b575a5842e5e3e5dc4dc649cdbfa00",
    "nu60a": "2e507d9746c3368aef9193aaf86aef402fe4f1882d4890a2fb93fd1ffcbd2391",
    "nu60b": "874f12c2d05e3d0e0258a688f083becad8cc0b8dba8ad8cf1738e2e50ae5b2a4",
    "nu61a": "887ebcd26d86af1031b4dbd1a1923b3bb2963a621b36e169efa78bfe69fca37e",
    "nu61b": "c2a81d493d533f926bf30cee74062813e967c19db527257e784c1e48f493d1da",
    "nu62a": "030cae0b853d24616fa84a43a50e33b04059c402f0a551c4a0ff90bbfa6d8020",
    "nu62b": "c56b4be492c4934b2d8cd38836dd65c76e27d4b1fa98d97a15b58d84af75c7a0",
    "nu63a": "ad817b053ac4bbaf914c2aaf880dafeee4211e27b428bf19189b219504e39c98",
    "nu63b": "8277cef98fe2908249fb09abbc715b62c9f2b2502eb5218f3db9b60e2ebe8af7",
    "nu64a": "94ad42103b0a187dceeba88a961b7925b869cb8335039256e53f4fbf73aa7e37",
    "nu64b": "05fb09c34797d65b3d0c00c236739fb1c2e29cc2b5560a40b192ad1846a3946e",
    "nu65a": "b9450d05fd0295d754c801e82b7679892e9d690deed0e8c1f4b9ba7c4d3471e6",
    "nu65b": "08520d4e08ffb570deccda13dc5e742c6e6df07e3edd33c60a711632b5e33f63",
    "nu66a": "23526ccdc401795918578669802c0a57d38ecf7c5f5f07b36923ab9b2ed93bf6",
    "nu66b": "15f548d03578e5b0900599f182ce6d4d5ed56b81c36d9b286727261b08e2861e",
    "nu70a": "021e57ff0acb2f41b2b7a8591d9b9ff61131c843403d4ca11c17e9460d54c6e4",
    "nu70b": "fc2921f259ebd5b509bab750c29e4d0c19bf7929b7b94f4708e7a27cd9b3ae9b",
    "nu71a": "8d3ada3fa220e27cd46f43a7a706f9326d0a7637d5e465d702efc59acc92e5b2",
    "nu71b": "ec244e864a3d0090a5531740b56194c73a1f8059bd8bc2e13c4184b6bee4d7c7",
    "nu73a": "f6a248664f561739250a18c16c6b5360c755da8c73736e047d0d48be9a73ad05",
    "nu73b": "d4f8a867106c9adb4c315b228f4a8b78db4d46e946e7f2315441255fa47bbb28",
    "nu75a": "ed116934c3a0b96f3b25136d13bc3d05522862483110df427311f3cb6f8afbf5",
    "nu75b": "8a812a70102eac93e1cbe3b2fcb35dc9fdcb37a25094571095f20a16aaf92164",
}


def heldout(name: str, *sources: Source | Sdist | Deb | NpmPack) -> Corpus:
    return Corpus(name, HELDOUT_DIR / name / "questions.jsonl", sources, digest=DIGESTS[name])


def copied(
    package: str, version: str, folder: Path, names: tuple[str, ...]
) -> tuple[InstalledBytes, ...]:
    """Files one Debian package installed in `folder`, copied as bytes under their names."""
    return tuple(InstalledBytes(package, version, folder / name, name) for name in names)


HELDOUT: tuple[Corpus, ...] = (
    heldout("babel", docs_of("babel")),
    heldout("httpx", whole("httpx")),
    heldout("man", *MAN_FOLDER),
    heldout("nu14a", docs_of("pint")),
    heldout("nu14b", whole("arrow")),
    heldout("nu14c", docs_of("black")),
    heldout("nu14d", *copied("debian-policy", "4.6.2.0", POLICY_HTML, POLICY_PAGES)),
    heldout("nu15", docs_of("structlog")),
    heldout("nu16", whole("requests")),
    heldout("nu17", docs_of("markdown")),
    heldout("nu18", whole("attrs")),
    heldout("nu19", whole("packaging")),
    # nu20: docs/changelog.rst only includes ../CHANGES.rst, so the copy sits next to it
    heldout("nu20", docs_of("urllib3"), sdist_part("urllib3", ("CHANGES.rst",))),
    heldout("nu21", *copied("debian-reference-en", "2.100", REFERENCE, REFERENCE_PAGES)),
    heldout("nu22", whole("psutil")),
    heldout(
        "nu23", *(InstalledTree(p, version, DOC / p, p, also) for p, version, also in DOC_FOLDERS)
    ),
    heldout(
        "nu24",
        *(
            InstalledBytes(package, version, INFO / name, name)
            for package, version, name in INFO_MANUALS
        ),
    ),
    heldout("nu25", *copied("debian-handbook", "11.20220922", HANDBOOK, HANDBOOK_PAGES)),
    heldout(
        "nu26",
        *(
            InstalledBytes(package, version, MAN / f"man{page[-1]}" / f"{page}.gz", f"{page}.gz")
            for package, version, pages in MAN_5_7
            for page in pages
        ),
    ),
    # nu27: pytest's documentation lives in doc/en/, not docs/
    heldout("nu27", sdist_part("pytest", ("doc/en/*",), under="doc/en")),
    # nu28: sqlite3-doc's pages, without sqlite3's changelogs and copyright beside them
    heldout("nu28", PackageTree("sqlite3-doc", "3.40.1-2+deb12u2", DOC / "sqlite3", "")),
    # nu29: trio's Sphinx sources live in docs/source/
    heldout("nu29", sdist_part("trio", ("docs/source/*",), under="docs/source")),
    heldout("nu30", docs_of("simpy")),
    heldout("nu31", docs_of("jinja2")),
    # nu32: mypy's Sphinx sources live in docs/source/
    heldout("nu32", sdist_part("mypy", ("docs/source/*",), under="docs/source")),
    heldout("nu33", *GAME_MANUALS),
    heldout("nu34", GNUCASH_GUIDE),
    heldout("nu35", REGEX_CRATE),
    heldout("nu36", COMMANDER),
    heldout("nu37", *COMMONMARK_FOLDER),
    heldout("nu38", *RUBY_WEB),
    heldout("nu39", LOG4PERL),
    heldout("nu40", PENLIGHT, PENLIGHT_DEV),
    heldout("nu41", ETCKEEPER),
    heldout("nu46", *COBRA),
    # nu51a: the whole emcee sdist; its docs/.gitignore ignores its own docs/tutorials/
    heldout("nu51a", whole("emcee")),
    heldout("nu51b", *GIT_DOC),
    heldout("nu52a", *LATEX_PDFS),
    heldout("nu52b", ANSIBLE_ZABBIX),
    heldout("nu53a", ANSIBLE_MONGODB),
    heldout("nu53b", DEBIAN_DOCS),
    heldout("nu54a", COMMONS_LANG_JAVADOC),
    # nu54b: a C library as a PyPI sdist bundles it: lz4 4.3.3, lz4's C sources
    # (lz4libs/), the bindings' C and Python, tests, Sphinx docs, unpacked as is
    heldout("nu54b", whole("lz4")),
    heldout("nu55a", JSONCPP_DOXYGEN),
    heldout("nu55b", STATSMODELS_NOTEBOOKS),
    heldout("nu56a", EDU_LEGACY_EPUBS),
    heldout("nu56b", POSTMODERN_ORG),
    heldout("nu57a", *OFFICE_DOCUMENTS),
    heldout("nu57b", IKIWIKI_PAGES),
    heldout("nu58a", FREERADIUS_ANTORA),
    heldout("nu58b", CADABRA_HELP),
    heldout("nu59a", *GNOME_APP_HELP),
    heldout("nu59b", *RUST_MDBOOKS),
    # nu60a: an MkDocs site's sources as the sdist ships them: docs/ (the Markdown pages in
    # docs/src/markdown with their hidden .snippets/, the Material theme's overrides in
    # docs/theme) and mkdocs.yml beside it, under their own paths
    heldout("nu60a", sdist_part("pymdown-extensions", ("docs/*", "mkdocs.yml"))),
    heldout("nu60b", MOBX),
    heldout("nu61a", ASPELL_MANUAL_HTML),
    heldout("nu61b", COMPANY_ELPA),
    heldout("nu62a", CLI11_HEADERS),
    heldout("nu62b", GUILE_LIB_SOURCES),
    heldout("nu63a", CMDLINER_OCAML),
    heldout("nu63b", SPLIT_HADDOCK),
    heldout("nu64a", GROFF_DOCUMENTS),
    heldout("nu64b", TCLLIB_MODULES),
    heldout("nu65a", EUNIT_SOURCES),
    heldout("nu65b", DPLYR_VIGNETTES),
    heldout("nu66a", VIM_USER_MANUAL),
    heldout("nu66b", ALEXANDRIA_SOURCES),
    heldout("nu70a", SKLEARN_DATASETS),
    heldout("nu70b", *CORE_ASYNC_SOURCES),
    heldout("nu71a", CRYSTAL_HTTP),
    heldout("nu71b", NIM_COLLECTIONS),
    heldout("nu73a", VIM_AIRLINE),
    heldout("nu73b", PHOBOS_CONTAINERS_DIGESTS),
    heldout("nu75a", PYTHONNET_RUNTIME),
    heldout("nu75b", CAIRO_GTK_DOC),
)


def table(readme: Path = README) -> list[tuple[str, list[str]]]:
    """The README's table: (folder name, the row's cells), in order, header and rule left
    out."""
    rows = []
    for line in readme.read_text("utf-8").splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 2 and cells[0] == "" and cells[1] and set(cells[1]) != {"-"}:
            rows.append((cells[1], cells))
    return [(name, cells) for name, cells in rows if name != "name"]


def recorded_digests(readme: Path = README) -> dict[str, str]:
    """Folder name → the digest its README row records, for rows that record one."""
    found = {}
    for name, cells in table(readme):
        line = "|".join(cells)
        if (at := line.find(DIGEST_MARK)) >= 0:
            found[name] = line[at + len(DIGEST_MARK) :][:64]
    return found


def question_digest(name: str, readme: Path = README) -> str | None:
    """The sha256 of NAME's questions.jsonl as its README row recorded it when frozen (the
    row's last cell)."""
    for row_name, cells in table(readme):
        if row_name == name:
            digest = cells[-2].strip("`")
            return digest if len(digest) == 64 else None
    return None


def readme_rows(readme: Path = README) -> list[str]:
    """The folder names of the README's table, in order."""
    return [name for name, _cells in table(readme)]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    out, wanted = Path(argv[0]), argv[1:]
    unknown = set(wanted) - {c.name for c in HELDOUT}
    if unknown:
        print(f"no held-out folder named {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    recorded = recorded_digests()
    status = 0
    for corpus, folder in built(HELDOUT, out, wanted):
        if folder is None:
            status = 1
            continue
        count = sum(1 for p in folder.rglob("*") if p.is_file())
        digest, want = tree_digest(folder), recorded.get(corpus.name)
        if want is None:
            verdict = "no digest in README"
        else:
            verdict = "equals README" if want == digest else f"DIFFERS from README's {want}"
            status |= want != digest
        print(f"{corpus.name}: {count} files, digest {digest}, {verdict}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
