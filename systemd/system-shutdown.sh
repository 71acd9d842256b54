#!/bin/sh
# Monopoly City Unit's "safe to unplug" sign, installed by install.sh as
# /usr/lib/systemd/system-shutdown/monopoly-city. systemd runs every program in that folder at the very
# end of a shutdown, after all services have stopped and the file systems are read-only, with the
# action as $1 (poweroff, halt, reboot or kexec). For a poweroff or a halt it draws « ÉTEINT · VOUS
# POUVEZ DÉBRANCHER » on the OLED, which keeps its picture while the Pi is halted.
case "${1:-}" in
    poweroff|halt) ;;
    *) exit 0 ;;
esac
PY=/opt/monopoly-city/venv/bin/python
[ -x "$PY" ] || exit 0
# A bound, for a display that never answers: the sign takes about a second on a Pi, but 10 s was too short on
# an emulated Pi 3 B under a slowed host (killed after clearing the screen, before the sign: a blank OLED).
# systemd-shutdown waits 90 s for all of its programs.
exec timeout 30 "$PY" -m unit.app.halt --config /etc/monopoly-city/config.yaml
