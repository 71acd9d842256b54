#!/bin/sh
# Install Monopoly City Unit as a systemd service on Raspberry Pi OS (make install-pi), or remove it
# (make uninstall-pi; the configuration in /etc/monopoly-city is kept).
#
#   systemd/install.sh [--uninstall] [--root DIR] [--pip-args "ARGS"]
#
# --root DIR installs into DIR instead of / (for tests and images): no user is created, systemctl is
# not called and the service is enabled by its symlink only.
set -eu

ROOT=/
ACTION=install
PIP_ARGS=""
while [ $# -gt 0 ]; do
    case "$1" in
        --uninstall) ACTION=uninstall ;;
        --root) ROOT="$2"; shift ;;
        --pip-args) PIP_ARGS="$2"; shift ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

SRC=$(cd "$(dirname "$0")/.." && pwd)
R=${ROOT%/}                      # "" for /, so that paths read $R/etc/...
PREFIX=$R/opt/monopoly-city
UNIT=monopoly-city-unit.service
USER_NAME=monopoly
on_this_system() { [ "$R" = "" ]; }
say() { echo "monopoly-city: $*"; }

if on_this_system && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root (sudo make install-pi)" >&2
    exit 2
fi

do_uninstall() {
    if on_this_system; then
        systemctl disable --now "$UNIT" 2>/dev/null || true
    fi
    rm -f "$R/etc/systemd/system/multi-user.target.wants/$UNIT" "$R/etc/systemd/system/$UNIT"
    rm -f "$R/etc/polkit-1/rules.d/50-monopoly-city.rules"
    rm -rf "$PREFIX" "$R/var/lib/monopoly-city"
    if on_this_system; then
        systemctl daemon-reload
        if getent passwd "$USER_NAME" >/dev/null; then userdel "$USER_NAME"; fi
    fi
    say "removed; the configuration in $R/etc/monopoly-city is kept"
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
    else
        say "--root: not creating the system user $USER_NAME"
    fi

    say "virtual environment in $PREFIX/venv (with the system's lgpio and gpiozero)"
    mkdir -p "$PREFIX"
    python3 -m venv --system-site-packages "$PREFIX/venv"
    # Build from a copy, so the source folder stays clean (setuptools builds in place).
    build=$(mktemp -d)
    cp -R "$SRC/pyproject.toml" "$SRC/README.md" "$SRC/unit" "$build/"
    # shellcheck disable=SC2086
    "$PREFIX/venv/bin/pip" install --quiet $PIP_ARGS "$build[pi]"
    rm -rf "$build"
    # ProtectSystem=strict makes the venv read-only for the service: compile now.
    "$PREFIX/venv/bin/python" -m compileall -q "$PREFIX/venv" >/dev/null || true
    rm -rf "$PREFIX/docs"
    cp -R "$SRC/docs" "$PREFIX/docs"

    mkdir -p "$R/etc/monopoly-city"
    if [ -e "$R/etc/monopoly-city/config.yaml" ]; then
        say "keeping $R/etc/monopoly-city/config.yaml"
    else
        install -m 0644 "$SRC/systemd/config.yaml" "$R/etc/monopoly-city/config.yaml"
        say "wrote $R/etc/monopoly-city/config.yaml"
    fi

    mkdir -p "$R/etc/systemd/system/multi-user.target.wants" "$R/etc/polkit-1/rules.d"
    install -m 0644 "$SRC/systemd/$UNIT" "$R/etc/systemd/system/$UNIT"
    ln -sf "/etc/systemd/system/$UNIT" "$R/etc/systemd/system/multi-user.target.wants/$UNIT"
    install -m 0644 "$SRC/systemd/50-monopoly-city.rules" "$R/etc/polkit-1/rules.d/50-monopoly-city.rules"

    check_i2c || true
    if on_this_system; then
        systemctl daemon-reload
        systemctl restart "$UNIT"
        say "installed and started: journalctl -u $UNIT -f shows what it does"
    else
        say "installed into $ROOT"
    fi
}

"do_$ACTION"
