"""The box's settings file on the SD card, ``monopoly-city.txt``, applied at every boot.

People who never used Linux flash the image, then edit one short text file on the card's FAT partition from any
computer (Notepad, TextEdit): the box's name on the network, the home Wi-Fi and its country, an SSH key. The Pi sees
it at /boot/firmware/monopoly-city.txt; at every boot, before NetworkManager starts,
systemd/monopoly-city-setup.service runs ``python -m unit.boxsetup``, which reads it (:func:`read`, :func:`parse`)
and writes what it says into /etc (:func:`apply`), only what changed. Lines it did not understand are printed for the
journal and written beside the settings file, ``monopoly-city-erreurs.txt``, where the person will look.

The standard library only, and nothing else of the project: it also runs under a plain ``python3``, and nothing it
imports can keep the box from booting.
"""

from __future__ import annotations

import argparse
import binascii
import dataclasses
import difflib
import io
import os
import re
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

#: Where the Pi sees the settings file (the card's FAT partition), and the file of the lines not understood.
SETTINGS_FILE = Path("/boot/firmware/monopoly-city.txt")
ERRORS_NAME = "monopoly-city-erreurs.txt"
#: A settings file is a few hundred bytes: anything this large is not one.
MAX_BYTES = 64 * 1024
#: The login user the SSH key is for.
USER = "maker"
#: The Wi-Fi profile's file, its name and its UUID: fixed, so the one profile is rewritten, never a second made
#: (``uuid.uuid5(uuid.NAMESPACE_URL, "https://monopoly-city.invalid/home-wifi")``).
WIFI_FILE = "etc/NetworkManager/system-connections/home-wifi.nmconnection"
WIFI_ID = "home-wifi"
WIFI_UUID = "ccc2be62-01a8-51c2-8379-a870a89170be"
#: The regulatory domain: read by cfg80211 when it loads (bookworm has no /etc/default/crda).
COUNTRY_FILE = "etc/modprobe.d/monopoly-city-wifi.conf"
#: The public key types OpenSSH's sshd accepts by default, and how many length-prefixed strings the key's base64
#: holds, the type's name first (RFC 4253 6.6, RFC 5656 3.1, RFC 8709 4, OpenSSH's PROTOCOL.u2f).
SSH_KEY_TYPES = {
    "ssh-ed25519": 2,
    "ssh-rsa": 3,
    "ecdsa-sha2-nistp256": 3,
    "ecdsa-sha2-nistp384": 3,
    "ecdsa-sha2-nistp521": 3,
    "sk-ssh-ed25519@openssh.com": 3,
    "sk-ecdsa-sha2-nistp256@openssh.com": 4,
}
#: The first line of the files this module owns under /etc: where to change them instead.
OWNED = "# Written at every start by monopoly-city-setup.service from /boot/firmware/monopoly-city.txt: edit that file."


@dataclass(frozen=True)
class BoxSettings:
    """What monopoly-city.txt says, checked: every value is one :func:`parse` accepts, as it keeps it."""

    name: str = "monopoly-city"
    wifi_name: str = ""
    wifi_password: str = ""
    wifi_country: str = "FR"
    ssh_key: str = ""
    #: The keys whose line was there but not understood: what the box has for them is kept as it is (a Wi-Fi
    #: password mistyped must not turn the saved network into an open one). Not compared: it is not a setting.
    refused: frozenset[str] = dataclasses.field(default=frozenset(), compare=False, repr=False)


#: The keys, in the file's order.
KEYS = tuple(field.name for field in dataclasses.fields(BoxSettings) if field.name != "refused")

#: The file's comments above each key, French first then English; :func:`format` writes them, so the template
#: (systemd/monopoly-city.txt) is ``format(BoxSettings())``.
HEADER = (
    "# Monopoly City Unit : les réglages de la boîte / the box's settings",
    "# Modifiez ce fichier sur n'importe quel ordinateur, puis remettez la carte dans la boîte.",
    "# Edit this file on any computer, then put the card back in the box.",
    "# Une ligne qui n'a pas été comprise est écrite dans monopoly-city-erreurs.txt, à côté de ce fichier.",
    "# A line that was not understood is written into monopoly-city-erreurs.txt, next to this file.",
)
COMMENTS = {
    "name": "# Le nom de la boîte sur le réseau (lettres, chiffres, tirets) / its name on the network"
    " (letters, digits, dashes)",
    "wifi_name": "# Le Wi-Fi de la maison, son nom et son mot de passe (facultatif) / your home Wi-Fi, its name and"
    " password (optional)",
    "wifi_country": "# Le pays du Wi-Fi, deux lettres / the Wi-Fi's country, two letters",
    "ssh_key": "# Une clé SSH publique pour l'utilisateur « maker » (facultatif) / an SSH public key for the user"
    ' "maker" (optional)',
}


# --- reading ----------------------------------------------------------------------------------------------------


def read(path: Path) -> str:
    """The text of the settings file at ``path``, however the editor saved it: UTF-8 with or without a byte order
    mark (Notepad, TextEdit), else Windows-1252 (an older Notepad's "ANSI"), else Latin-1, which never fails.

    Raises OSError (FileNotFoundError when there is none); a file larger than :data:`MAX_BYTES` is refused
    unread.
    """
    with path.open("rb") as file:
        if os.fstat(file.fileno()).st_size > MAX_BYTES:
            raise OSError(f"larger than {MAX_BYTES} bytes: not a settings file")
        data = file.read(MAX_BYTES + 1)
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def parse(text: str, source: str = "monopoly-city.txt") -> tuple[BoxSettings, list[str]]:
    """The settings ``text`` gives, and one line per line of it not understood (``source`` names the file there).

    Tolerant of what editors do: a byte order mark, CRLF or CR line ends, spaces around ``=``, a value in matching
    double or single quotes (kept exactly inside them), blank lines. Only the first ``=`` of a line splits it, and
    ``#`` starts a comment only at the start of a line: a Wi-Fi password may hold both. A value not understood
    leaves its setting at its default and the others apply.
    """
    found: dict[str, tuple[int, str]] = {}  # key: (line number, value as written)
    errors: list[tuple[int, str]] = []  # (line number, what is wrong)
    refused: set[str] = set()
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text.removeprefix("\ufeff")), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, equals, value = line.partition("=")
        key = key.strip().lower()
        if not equals or not key:
            errors.append((number, f"expected 'key = value', got {_shown(line)}"))
            written = re.match(r"[A-Za-z_]+", line)  # « wifi_password: secret »: that key is refused
            if written and written.group(0).lower() in KEYS:
                refused.add(written.group(0).lower())
        elif key not in KEYS:
            errors.append((number, f"{key}: unknown key{_did_you_mean(key)} (expected one of: {', '.join(KEYS)})"))
        elif key in found:
            errors.append((number, f"{key}: already given on line {found[key][0]} (this line is ignored)"))
        else:
            found[key] = (number, _unquoted(value.strip()))

    values: dict[str, str] = {}
    for key, (number, value) in found.items():
        try:
            values[key] = CHECKS[key](value)
        except ValueError as error:
            errors.append((number, f"{key}: {error}"))
            refused.add(key)
    if values.get("wifi_password") and not values.get("wifi_name"):
        del values["wifi_password"]  # a name refused has said so already; none given is said here
        if not found.get("wifi_name", (0, ""))[1]:
            errors.append((found["wifi_password"][0], "wifi_password: given without a wifi_name (it is ignored)"))
    settings = BoxSettings(**values, refused=frozenset(refused))
    return settings, [f"{source} line {number}: {error}" for number, error in sorted(errors)]


def _unquoted(value: str) -> str:
    """``value`` without the matching double or single quotes around it, if it has them."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _shown(value: str, limit: int = 40) -> str:
    """``value`` as an error line quotes it: repr, cut after ``limit`` characters."""
    return repr(value) if len(value) <= limit else repr(value[:limit]) + "…"


def _did_you_mean(key: str) -> str:
    close = difflib.get_close_matches(key.replace(" ", "_").replace("-", "_"), KEYS, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# --- the checks: each returns the value as kept, or raises ValueError with what was expected ---------------------


_HOSTNAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")


def check_name(value: str) -> str:
    """A host name label (RFC 1123): 1 to 63 letters, digits and dashes, not starting or ending with a dash.
    Capitals are lowered; a space, an underscore or an accent is refused with a name to try instead."""
    name = value.lower()
    if _HOSTNAME.fullmatch(name):
        return name
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    tried = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:63].strip("-")
    return _refused("letters, digits and dashes like monopoly-city", value, f" (try {tried!r})" if tried else "")


def check_wifi_name(value: str) -> str:
    """A Wi-Fi network's name (SSID) as the router shows it: at most 32 bytes in UTF-8, no control characters (an
    emoji's joiners are welcome); empty for none."""
    if not value:
        return ""
    if any(unicodedata.category(c) == "Cc" for c in value):
        return _refused("a Wi-Fi name without tabs or other control characters", value)
    size = len(value.encode())
    if size > 32:
        raise ValueError(f"expected at most 32 bytes (an accented letter counts 2), got {size}: {_shown(value)}")
    return value


def check_wifi_password(value: str) -> str:
    """A WPA2 passphrase (8 to 63 characters from space to ~, no accents) or a raw key (64 hexadecimal digits);
    empty for an open network. An error never shows the password: it may be nearly right."""
    if not value:
        return ""
    if len(value) == 64 and re.fullmatch(r"[0-9A-Fa-f]{64}", value):
        return value
    if 8 <= len(value) <= 63 and all(" " <= c <= "~" for c in value):
        return value
    if not all(" " <= c <= "~" for c in value):
        raise ValueError("expected letters, digits, spaces and signs without accents (WPA2 allows no others)")
    raise ValueError(f"expected 8 to 63 characters (or 64 hexadecimal digits), got {len(value)} characters")


def check_wifi_country(value: str) -> str:
    """The country the Wi-Fi is used in, as two letters (ISO 3166), upper-cased: it sets the allowed channels."""
    if re.fullmatch(r"[A-Za-z]{2}", value):
        return value.upper()
    return _refused("two letters like FR", value)


def check_ssh_key(value: str) -> str:
    """An OpenSSH public key, the one line of a .pub file: ``TYPE BASE64 [COMMENT]``, the base64 decoding to a
    whole key of that type (its strings, no byte more or less: a key cut short when copied is refused). Kept with
    single spaces between its three parts."""
    if not value:
        return ""
    if value.startswith("-----BEGIN"):
        raise ValueError("this is a private key: keep it secret, and give the one line of the .pub file instead")
    parts = value.split(maxsplit=2)
    expected = "one line like 'ssh-ed25519 AAAA… you@computer' (the .pub file)"
    if len(parts) < 2 or parts[0] not in SSH_KEY_TYPES or not value.isprintable():
        return _refused(expected, value)
    try:
        strings = _ssh_strings(binascii.a2b_base64(parts[1], strict_mode=True))
    except (binascii.Error, struct.error):
        strings = []
    if strings[:1] != [parts[0].encode()] or len(strings) != SSH_KEY_TYPES[parts[0]]:
        raise ValueError(f"the key after {parts[0]} is not whole: was a part of it lost when copied?")
    return " ".join(part.strip() for part in parts)


def _ssh_strings(blob: bytes) -> list[bytes]:
    """The length-prefixed strings ``blob`` is made of (SSH's wire format); struct.error if it ends inside one."""
    strings = []
    while blob:
        (size,) = struct.unpack_from(">I", blob)
        if len(blob) < 4 + size:
            raise struct.error("cut short")
        strings.append(blob[4 : 4 + size])
        blob = blob[4 + size :]
    return strings


def _refused(expected: str, value: str, hint: str = "") -> str:
    raise ValueError(f"expected {expected}, got {_shown(value)}{hint}")


CHECKS = {
    "name": check_name,
    "wifi_name": check_wifi_name,
    "wifi_password": check_wifi_password,
    "wifi_country": check_wifi_country,
    "ssh_key": check_ssh_key,
}


# --- writing the file back ---------------------------------------------------------------------------------------


def format(settings: BoxSettings) -> str:
    """``settings`` as monopoly-city.txt: the template's comments and keys, each value as :func:`parse` reads it
    back (in double quotes when it has spaces at either end or is itself in matching quotes)."""
    lines = [*HEADER]
    for key in KEYS:
        if key in COMMENTS:
            lines += ["", COMMENTS[key]]
        value = getattr(settings, key)
        if value != value.strip() or _unquoted(value) != value:
            value = f'"{value}"'
        lines.append(f"{key} = {value}".rstrip())
    return "\n".join(lines) + "\n"


# --- applying it ----------------------------------------------------------------------------------------------


class NotApplied(Exception):
    """Some of :func:`apply`'s steps failed, the others were done: ``changes`` made and ``failures``, one line
    each."""

    def __init__(self, changes: list[str], failures: list[str]):
        super().__init__("; ".join(failures))
        self.changes = changes
        self.failures = failures


def apply(settings: BoxSettings, root: Path) -> list[str]:
    """Write ``settings`` into the system under ``root`` (``/`` on the box, a temporary folder in a test), and say
    what changed, one line each.

    A file is written only when its content changes (compared first, then written atomically: a temporary file,
    fsync, rename), keeping its mode: a second run with the same settings writes nothing. Each step is independent:
    when some fail, the others are still done and :class:`NotApplied` says which failed. Under ``/`` the files for
    NetworkManager are root's and the SSH files the user's (:data:`USER`); elsewhere owners are left as they are.
    """
    on_box = root == Path("/")
    changes: list[str] = []
    failures: list[str] = []
    for what, step in STEPS:
        if STEP_KEYS.get(what, frozenset()) & settings.refused:
            continue  # a line for it was not understood: what the box has is kept
        try:
            change = step(settings, root, on_box)
        except OSError as error:
            where = f" ({error.filename})" if error.filename else ""
            failures.append(f"cannot set {what}: {error.strerror or error}{where}")
        except LookupError as error:
            failures.append(f"cannot set {what}: {error.args[0]}")
        else:
            changes += [change] if change else []
    if failures:
        raise NotApplied(changes, failures)
    return changes


def _hostname(settings: BoxSettings, root: Path, on_box: bool) -> str | None:
    if _update(root / "etc/hostname", f"{settings.name}\n", mode=0o644):
        return f"hostname set to {settings.name}"
    return None


def _hosts(settings: BoxSettings, root: Path, on_box: bool) -> str | None:
    path = root / "etc/hosts"
    ours = f"127.0.1.1\t{settings.name}"
    try:
        lines = path.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except FileNotFoundError:
        lines = ["127.0.0.1\tlocalhost", "::1\t\tlocalhost ip6-localhost ip6-loopback"]
    kept = [line for line in lines if line.split()[:1] != ["127.0.1.1"]]
    at = next((i for i, line in enumerate(lines) if line.split()[:1] == ["127.0.1.1"]), len(kept))
    if _update(path, "\n".join([*kept[:at], ours, *kept[at:]]) + "\n", mode=0o644):
        return f"/etc/hosts: 127.0.1.1 is {settings.name}"
    return None


def _wifi(settings: BoxSettings, root: Path, on_box: bool) -> str | None:
    path = root / WIFI_FILE
    if not settings.wifi_name:
        if not path.exists():
            return None
        path.unlink()
        _sync_directory(path.parent)
        return "home Wi-Fi removed"
    if _update(path, keyfile(settings), mode=0o600, owner=(0, 0) if on_box else None, exact=True):
        how = "with its password" if settings.wifi_password else "an open network"
        return f"home Wi-Fi set to {settings.wifi_name!r} ({how})"
    return None


def _country(settings: BoxSettings, root: Path, on_box: bool) -> str | None:
    text = f"{OWNED}\noptions cfg80211 ieee80211_regdom={settings.wifi_country}\n"
    changed = _update(root / COUNTRY_FILE, text, mode=0o644)
    if on_box:
        # cfg80211 reads that file when it loads, which udev has usually done by now: the running kernel too.
        try:
            subprocess.run(["iw", "reg", "set", settings.wifi_country], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            pass  # no iw or no Wi-Fi: the file applies from the next start
    if changed:
        return f"Wi-Fi country set to {settings.wifi_country}"
    return None


def _ssh_key(settings: BoxSettings, root: Path, on_box: bool) -> str | None:
    if not settings.ssh_key:
        return None
    if on_box:
        import pwd  # POSIX only; imported where used

        try:
            user = pwd.getpwnam(USER)
        except KeyError:
            raise LookupError(f"there is no user {USER!r} to give it to") from None
        home, owner = Path(user.pw_dir), (user.pw_uid, user.pw_gid)
    else:
        home, owner = root / "home" / USER, None
    folder = home / ".ssh"
    path = folder / "authorized_keys"
    try:
        old = path.read_text(encoding="utf-8", errors="surrogateescape")
    except FileNotFoundError:
        old = ""
    kind, blob, *comment = settings.ssh_key.split(maxsplit=2)
    if any(blob in line.split() for line in old.splitlines()):
        return None
    if not folder.is_dir():
        folder.mkdir(mode=0o700, parents=True)
        os.chmod(folder, 0o700)  # mkdir's mode is less the umask
        if owner:
            os.chown(folder, *owner)
    separator = "\n" if old and not old.endswith("\n") else ""
    _write(path, f"{old}{separator}{settings.ssh_key}\n".encode(errors="surrogateescape"), 0o600, owner)
    return f"SSH key added for {USER}: {' '.join([kind, '…' + blob[-12:], *comment])}"


#: The keys each step writes: a step is skipped when one of them was refused (:attr:`BoxSettings.refused`).
STEP_KEYS = {
    "the hostname": frozenset({"name"}),
    "/etc/hosts": frozenset({"name"}),
    "the home Wi-Fi": frozenset({"wifi_name", "wifi_password"}),
    "the Wi-Fi's country": frozenset({"wifi_country"}),
}

#: apply()'s steps, each named as a failure says it: it returns its change in words, or None.
STEPS = (
    ("the hostname", _hostname),
    ("/etc/hosts", _hosts),
    ("the home Wi-Fi", _wifi),
    ("the Wi-Fi's country", _country),
    ("the SSH key", _ssh_key),
)


def keyfile(settings: BoxSettings) -> str:
    """The home Wi-Fi as NetworkManager's keyfile (nm-settings-keyfile(5)), escaped as NetworkManager writes it.

    A key file is GLib's: in a string a backslash is doubled and a space at either end is ``\\s``. An SSID of
    printable ASCII is such a string with each ``;`` as ``\\;`` (NetworkManager reads a string of digits and
    semicolons as a list of bytes); any other SSID, one with accents say, is its bytes in decimal, each followed by
    ``;``. The password is a plain string.
    """
    lines = [
        OWNED,
        "[connection]",
        f"id={WIFI_ID}",
        f"uuid={WIFI_UUID}",
        "type=wifi",
        "autoconnect=true",
        "autoconnect-priority=10",
        "",
        "[wifi]",
        "mode=infrastructure",
        f"ssid={_keyfile_ssid(settings.wifi_name)}",
        "",
    ]
    if settings.wifi_password:
        lines += ["[wifi-security]", "key-mgmt=wpa-psk", f"psk={_keyfile_string(settings.wifi_password)}", ""]
    lines += ["[ipv4]", "method=auto", "", "[ipv6]", "method=auto"]
    return "\n".join(lines) + "\n"


def _keyfile_string(value: str) -> str:
    """``value`` as GLib's ``g_key_file_set_string`` writes it (a backslash doubled, a leading space ``\\s``), and
    a trailing space as ``\\s`` too, which GLib reads alike and no editor strips."""
    escaped = value.replace("\\", "\\\\")
    inner = escaped.strip(" ")
    if not inner:
        return "\\s" * len(escaped)
    lead, trail = len(escaped) - len(escaped.lstrip(" ")), len(escaped) - len(escaped.rstrip(" "))
    return "\\s" * lead + inner + "\\s" * trail


def _keyfile_ssid(name: str) -> str:
    data = name.encode()
    if all(0x20 <= byte < 0x7F for byte in data):
        return _keyfile_string(name.replace(";", "\\;"))
    return "".join(f"{byte};" for byte in data)


# --- files ------------------------------------------------------------------------------------------------------


def _update(path: Path, text: str, mode: int, owner: tuple[int, int] | None = None, *, exact: bool = False) -> bool:
    """Write ``text`` into ``path`` if it holds something else, and say whether it did. A file kept keeps its mode
    (``mode`` is a new one's), unless ``exact``: then a file of another mode or owner is written again."""
    data = text.encode(errors="surrogateescape")
    try:
        info = path.stat()
        same = path.read_bytes() == data
    except FileNotFoundError:
        info, same = None, False
    if info is not None and exact:
        same = same and stat.S_IMODE(info.st_mode) == mode and (owner is None or (info.st_uid, info.st_gid) == owner)
    if same:
        return False
    _write(path, data, mode if exact or info is None else stat.S_IMODE(info.st_mode), owner)
    return True


def _write(path: Path, data: bytes, mode: int | None, owner: tuple[int, int] | None = None) -> None:
    """Write ``path`` so that a power cut leaves the old file or the new one: a temporary file beside it (created
    0600), its mode (``None``: as the file system makes it, for the card's FAT which refuses chmod) and owner set
    before a byte is written, fsync, rename, fsync of the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            if mode is not None:
                os.fchmod(file.fileno(), mode)
            if owner is not None:
                os.fchown(file.fileno(), *owner)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)


def _sync_directory(directory: Path) -> None:
    """Make a rename or a removal in ``directory`` survive a power cut. unit.files.sync_directory's twin, on
    purpose: this module imports nothing of the project, as it runs as a lone copy with the system's Python."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- the command ------------------------------------------------------------------------------------------------


ERRORS_HEADER = (
    "Ces lignes de monopoly-city.txt n'ont pas été comprises : la boîte a gardé le réglage par défaut de chacune.",
    "These lines of monopoly-city.txt were not understood: the box kept each one's default setting.",
    "Corrigez-les, puis remettez la carte dans la boîte. / Correct them, then put the card back in the box.",
)


def main(argv: list[str] | None = None) -> int:
    """Apply the settings file at every boot: 0 when all of it applied, 2 when some lines were not understood (the
    rest applied), 1 when something else failed. Never raises: the box must boot on, whatever happens here."""
    parser = argparse.ArgumentParser(prog="python -m unit.boxsetup", description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=SETTINGS_FILE, help="the settings file (default: %(default)s)")
    parser.add_argument("--root", type=Path, default=Path("/"), help="the system to set up (default: %(default)s)")
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")  # a line the journal cannot take is still one line
    try:
        arguments = parser.parse_args(argv)
    except SystemExit as exit:  # --help, or arguments the service never gives: argparse has said why
        return exit.code if isinstance(exit.code, int) else 2
    try:
        return _run(arguments.file, arguments.root)
    except Exception as error:  # a bug: one line in the journal, and the boot goes on
        print(f"monopoly-city-setup: {type(error).__name__}: {error}", file=sys.stderr)
        return 1


def _run(path: Path, root: Path) -> int:
    try:
        text = read(path)
    except FileNotFoundError:
        print(f"no settings file {path}: nothing changed")
        _report_errors(path, [])
        return 0
    except OSError as error:
        print(f"{path}: cannot read it: {error.strerror or error} (nothing changed)", file=sys.stderr)
        return 1
    settings, errors = parse(text, path.name)
    for line in errors:
        print(line, file=sys.stderr)
    status = 2 if errors else 0
    try:
        changes = apply(settings, root)
    except NotApplied as failed:
        changes = failed.changes
        for line in failed.failures:
            print(line, file=sys.stderr)
        status = 1
    if root == Path("/") and "name" not in settings.refused and socket.gethostname() != settings.name:
        try:
            socket.sethostname(settings.name)
            changes.append(f"running hostname set to {settings.name}")
        except OSError as error:
            print(f"cannot set the running hostname: {error.strerror or error}", file=sys.stderr)
            status = 1
    for line in changes or ["nothing to change"]:
        print(line)
    if not _report_errors(path, errors):
        status = 1
    return status


def _report_errors(path: Path, errors: list[str]) -> bool:
    """Write ``errors`` beside the settings file (:data:`ERRORS_NAME`), for the person to read on their computer,
    or remove that file when there are none. In UTF-8 with a byte order mark and CRLF: every Notepad reads it.
    Says whether that could be done (a card mounted read-only refuses both)."""
    target = path.with_name(ERRORS_NAME)
    try:
        if errors:
            text = "\r\n".join([*ERRORS_HEADER, "", *errors]) + "\r\n"
            _write(target, text.encode("utf-8-sig"), None)
            print(f"these lines are also in {target}")
        elif target.exists():
            target.unlink()
            _sync_directory(target.parent)
    except OSError as error:
        print(f"{target}: cannot write it: {error.strerror or error}", file=sys.stderr)
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
