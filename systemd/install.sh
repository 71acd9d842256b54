#!/bin/sh
# Install Monopoly City Unit as a systemd service on Raspberry Pi OS (make install-pi), or remove it
# (make uninstall-pi; the configuration in /etc/monopoly-city is kept).
#
#   systemd/install.sh [--uninstall] [--root DIR] [--pip-args "ARGS"]
#
# --root DIR installs into DIR instead of / (for tests and images): no user is created, no package is
# installed, systemctl is not called and the service is enabled by its symlink only. The files are
# made for their final place: the scripts in DIR/opt/monopoly-city/venv point to /opt/monopoly-city.
set -eu
umask 022                        # the service user must read what root installs, whatever root's umask

ROOT=/
ACTION=install
PIP_ARGS=""
while [ $# -gt 0 ]; do
    case "$1" in
        --uninstall) ACTION=uninstall ;;
        --root) ROOT="$2"; shift ;;
        --pip-args) PIP_ARGS="$2"; shift ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

SRC=$(cd "$(dirname "$0")/.." && pwd)
R=${ROOT%/}                      # "" for /, so that paths read $R/etc/...
FINAL=/opt/monopoly-city         # where the files live when the Pi runs
PREFIX=$R$FINAL
UNIT=monopoly-city-unit.service
WEB_UNIT=monopoly-city-web.service  # the phone companion (docs/phone.en.md)
HOOK=usr/lib/systemd/system-shutdown/monopoly-city
UDEV_RULE=etc/udev/rules.d/60-monopoly-city.rules
COMMAND=usr/local/bin/monopoly-city  # on the PATH: a link to the venv's command
USER_NAME=monopoly
WEB_USER=monopoly-city-web          # the phone companion's own user, in $USER_NAME's group for the socket only
STATE=var/lib/monopoly-city         # the unit's state (the game, the settings, the socket)
WEB_STATE=var/lib/monopoly-city-web # the web service's: its secret and the calculator's files (calculator/)
on_this_system() { [ "$R" = "" ]; }
say() { echo "monopoly-city: $*"; }

if on_this_system && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root (sudo make install-pi)" >&2
    exit 2
fi

# A 32-bit Raspberry Pi OS cannot install the pinned packages (measured: docs/dev/system-test.md).
if [ "$ACTION" = install ] && [ "$(python3 -c 'import struct; print(struct.calcsize("P") * 8)')" = 32 ]; then
    echo "install.sh: this is a 32-bit system: install Raspberry Pi OS (64-bit) Lite instead; Pillow, PyYAML and cbor2 have no 32-bit wheels on PyPI at the tested versions (docs/raspberry-pi.md)" >&2
    exit 2
fi

# What a failed install leaves behind is removed; the running installation is only replaced at the end.
build=""
cleanup() {
    [ -z "$build" ] || rm -rf "$build"
    rm -rf "$PREFIX/venv.new" "$PREFIX/venv.old"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

do_uninstall() {
    if on_this_system; then
        systemctl disable --now "$WEB_UNIT" 2>/dev/null || true
        systemctl disable --now "$UNIT" 2>/dev/null || true
    fi
    rm -f "$R/etc/systemd/system/multi-user.target.wants/$WEB_UNIT" "$R/etc/systemd/system/$WEB_UNIT"
    rm -f "$R/etc/systemd/system/multi-user.target.wants/$UNIT" "$R/etc/systemd/system/$UNIT"
    rm -f "$R/etc/polkit-1/rules.d/50-monopoly-city.rules" "$R/$HOOK" "$R/$UDEV_RULE"
    if [ -L "$R/$COMMAND" ]; then rm -f "$R/$COMMAND"; fi
    rm -rf "$PREFIX"
    # The game in progress, the settings, the socket and the secret go; what the phones' people typed
    # (the calculator's editions and games) stays, with the configuration: in the web service's folder, or in
    # the unit's where an install older than the web service's own user left it.
    for state in "$R/$STATE" "$R/$WEB_STATE"; do
        if [ -d "$state" ]; then
            find "$state" -mindepth 1 -maxdepth 1 ! -name calculator -exec rm -rf {} +
            rmdir "$state" 2>/dev/null || true
        fi
    done
    if on_this_system; then
        # The web service's CPU cap, set at run time by its ExecStartPost (gone at the next boot anyway).
        rm -rf "/run/systemd/system.control/$WEB_UNIT.d"
        systemctl daemon-reload
        if getent passwd "$WEB_USER" >/dev/null; then userdel "$WEB_USER"; fi
        if getent passwd "$USER_NAME" >/dev/null; then userdel "$USER_NAME"; fi
    fi
    sync  # on the disk now: a power cut must not bring the removed files back half-way
    say "removed; the configuration in $R/etc/monopoly-city is kept"
    for state in "$R/$STATE" "$R/$WEB_STATE"; do
        if [ -d "$state/calculator" ]; then
            say "kept: the editions and games entered on the phones, in $state/calculator"
        fi
    done
}

check_i2c() {
    for config in "$R/boot/firmware/config.txt" "$R/boot/config.txt"; do
        if [ -f "$config" ] && grep -Eq '^[[:space:]]*dtparam=i2c_arm=on' "$config"; then
            return 0
        fi
    done
    say "I2C is not enabled, so the OLED cannot work (the unit still runs, with its LED and buzzer)."
    say "Enable it with:  sudo raspi-config nonint do_i2c 0  then reboot"
    say "(or add 'dtparam=i2c_arm=on' to /boot/firmware/config.txt)."
    return 1
}

# The shutdown button runs `systemctl poweroff` as the service's user: polkit must be there to allow it
# (Raspberry Pi OS Lite ships without it). Without it the shutdown would fail.
ensure_polkit() {
    if [ -d /usr/share/polkit-1/actions ] && command -v pkcheck >/dev/null 2>&1; then
        return 0
    fi
    say "installing polkit (the shutdown button needs it to power the Pi off)"
    if command -v apt-get >/dev/null 2>&1; then
        apt-get install -y --no-install-recommends polkitd || apt-get install -y policykit-1 ||
            say "could not install polkit: the unit works, but its button cannot power the Pi off"
    else
        say "no apt-get: install polkit yourself, or the shutdown button will not power the Pi off"
    fi
}

# A venv's scripts name its python by full path: make them name the final one.
relocate_venv() {
    from=$1 to=$2
    for file in "$from"/bin/*; do
        if [ -f "$file" ] && [ ! -L "$file" ] && grep -Iq "$from" "$file"; then
            sed -i "s|$from|$to|g" "$file"
        fi
    done
}

new_venv() {
    say "virtual environment in $PREFIX/venv (with the system's lgpio and gpiozero)"
    python3 -m venv --system-site-packages "$PREFIX/venv.new"
}

# An installed venv an update can start from: made by this python3 (its bin/python links to python3
# itself, so the libraries' folder tells: lib/python3.11 after an upgrade to 3.13 is another Python's), with
# its own pip.
venv_is_current() {
    version=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    [ -x "$PREFIX/venv/bin/python" ] && [ -d "$PREFIX/venv/lib/python$version/site-packages/pip" ]
}

# The project and its libraries into venv.new. Through its python, not bin/pip: a copied venv's scripts
# still name the installed venv's python, which would install there.
pip_install() {
    # shellcheck disable=SC2086
    "$PREFIX/venv.new/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile \
        -c "$SRC/systemd/constraints.txt" $PIP_ARGS "$build[pi,web]"
}

do_install() {
    if on_this_system; then
        for group in gpio i2c; do
            getent group "$group" >/dev/null || groupadd --system "$group"
        done
        if getent passwd "$USER_NAME" >/dev/null; then
            usermod -a -G gpio,i2c "$USER_NAME"
        else
            useradd --system --user-group --groups gpio,i2c --home-dir /nonexistent --no-create-home \
                --shell /usr/sbin/nologin "$USER_NAME"
        fi
        # The phone companion's own user: in the unit's group, which reaches the unit's socket and nothing else.
        if getent passwd "$WEB_USER" >/dev/null; then
            usermod -a -G "$USER_NAME" "$WEB_USER"
        else
            useradd --system --user-group --groups "$USER_NAME" --home-dir /nonexistent --no-create-home \
                --shell /usr/sbin/nologin "$WEB_USER"
        fi
        ensure_polkit
    else
        say "--root: not creating the system users $USER_NAME and $WEB_USER"
    fi

    install -d -m 0755 "$PREFIX"
    rm -rf "$PREFIX/venv.new"
    # Build from a copy, so the source folder stays clean (setuptools builds in place).
    build=$(mktemp -d)
    cp -R "$SRC/pyproject.toml" "$SRC/README.md" "$SRC/unit" "$build/"
    # An update starts from a copy of the installed venv: pip then replaces only what changed, and only
    # that is compiled again (the guide's install on the emulated Pi: 121 to 134 s instead of 321 s).
    if venv_is_current; then
        say "updating the virtual environment in $PREFIX/venv (a copy, swapped in once complete)"
        cp -a "$PREFIX/venv" "$PREFIX/venv.new"
        if ! pip_install; then
            say "the update of the virtual environment failed: making a new one"
            rm -rf "$PREFIX/venv.new"
            new_venv
            pip_install
        fi
    else
        new_venv
        pip_install
    fi
    relocate_venv "$PREFIX/venv.new" "$FINAL/venv"
    # ProtectSystem=strict makes the venv read-only for the service: compile now, naming the final paths;
    # what an update kept is compiled already (compileall compares each file's time; pip removed the pyc of
    # what it replaced).
    # Not pip and setuptools (723 of its 1,186 files): the service never imports them, and venv's
    # ensurepip compiled them already.
    "$PREFIX/venv.new/bin/python" -m compileall -q -s "$PREFIX/venv.new" -p "$FINAL/venv" \
        -x '/site-packages/(pip|setuptools|pkg_resources|_distutils_hack)/' "$PREFIX/venv.new" >/dev/null || true
    chmod -R a+rX "$PREFIX/venv.new"
    # Swap: the installed unit is replaced only once the new one is complete.
    if [ -e "$PREFIX/venv" ]; then mv "$PREFIX/venv" "$PREFIX/venv.old"; fi
    mv "$PREFIX/venv.new" "$PREFIX/venv"
    rm -rf "$PREFIX/venv.old" "$PREFIX/docs"
    cp -R "$SRC/docs" "$PREFIX/docs"
    chmod -R a+rX "$PREFIX/docs"

    install -d -m 0755 "$R/etc/monopoly-city"
    if [ -e "$R/etc/monopoly-city/config.yaml" ]; then
        say "keeping $R/etc/monopoly-city/config.yaml"
    else
        install -m 0644 "$SRC/systemd/config.yaml" "$R/etc/monopoly-city/config.yaml"
        say "wrote $R/etc/monopoly-city/config.yaml"
    fi

    install -d -m 0755 "$R/etc/systemd/system/multi-user.target.wants" "$R/etc/polkit-1/rules.d" \
        "$R/usr/lib/systemd/system-shutdown"
    install -m 0644 "$SRC/systemd/$UNIT" "$R/etc/systemd/system/$UNIT"
    ln -sf "/etc/systemd/system/$UNIT" "$R/etc/systemd/system/multi-user.target.wants/$UNIT"
    install -m 0644 "$SRC/systemd/$WEB_UNIT" "$R/etc/systemd/system/$WEB_UNIT"
    ln -sf "/etc/systemd/system/$WEB_UNIT" "$R/etc/systemd/system/multi-user.target.wants/$WEB_UNIT"
    install -m 0644 "$SRC/systemd/50-monopoly-city.rules" "$R/etc/polkit-1/rules.d/50-monopoly-city.rules"
    install -m 0755 "$SRC/systemd/system-shutdown.sh" "$R/$HOOK"
    install -d -m 0755 "$R/etc/udev/rules.d" "$R/usr/local/bin"
    install -m 0644 "$SRC/systemd/60-monopoly-city.rules" "$R/$UDEV_RULE"
    ln -sfn "$FINAL/venv/bin/monopoly-city" "$R/$COMMAND"

    move_calculator
    check_i2c || true
    # On the disk before anything starts: written files sit in memory for up to 30 s, and a Pi unplugged
    # then would boot with empty unit files (masked services) and a venv of empty files (seen in the
    # system test: docs/dev/system-test.md).
    sync
    if on_this_system; then
        # systemd runs here (not a system being built in a chroot, where udevadm would reach the host's devices).
        if [ -d /run/systemd/system ]; then
            # The GPIO chips and I2C buses to their groups now (Raspberry Pi OS does it already; Debian does not).
            if command -v udevadm >/dev/null 2>&1; then
                udevadm control --reload || true
                udevadm trigger --subsystem-match=gpio --subsystem-match=i2c-dev || true
                udevadm settle || true
            fi
            systemctl daemon-reload
            systemctl restart "$UNIT" "$WEB_UNIT"
            say "installed and started: journalctl -u $UNIT -f shows what it does"
        else
            # A system being built (make image runs this in its chroot): nothing to restart, both start at boot.
            say "installed; systemd is not running here, so both services start at the next boot"
        fi
    else
        say "installed into $ROOT"
    fi
}

# Before the web service had its own user, the calculator's files were in the unit's state folder: moved
# across once (the web service can no longer write there), with the web service's secret left behind.
move_calculator() {
    old="$R/$STATE/calculator" new="$R/$WEB_STATE/calculator"
    [ -d "$old" ] || return 0
    if on_this_system; then systemctl stop "$WEB_UNIT" 2>/dev/null || true; fi
    if [ -e "$new" ]; then
        say "not moving $old: $new exists already (both kept)"
        return 0
    fi
    install -d -m 0700 "$R/$WEB_STATE"
    mv "$old" "$new"
    rm -f "$R/$STATE/web-secret"
    if on_this_system; then chown -R "$WEB_USER:$WEB_USER" "$R/$WEB_STATE"; fi
    say "moved the editions and games entered on the phones to $new"
}

"do_$ACTION"
