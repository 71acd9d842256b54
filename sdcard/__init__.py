"""The Raspberry Pi SD-card image of Monopoly City Unit (``make image``): Debian 12 with the unit inside.

Built from Debian's packages only, laid out as Debian's own Raspberry Pi images (a FAT partition labelled
RASPIFIRM on ``/boot/firmware``, an ext4 root labelled RASPIROOT, ``raspi-firmware``'s kernel hook). Python's
standard library only, on the host: see docs/dev/image.md.
"""
