"""The hardware side: the Backend interface, OLED drawing, and one module per kind of hardware."""
