"""`make system-test`: the box installed as docs/raspberry-pi.md says, on a real kernel, systemd and GPIO chip.

Debian 12 arm64 under ``qemu-system-aarch64 -M virt`` (docs/dev/system-test.md): the image is built once
and cached outside the repository, each run boots a throw-away copy, installs a clone with
``sudo make install-pi`` and checks the services from the host.
"""
