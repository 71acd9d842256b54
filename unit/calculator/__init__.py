"""The rules and rent calculator: editions, positions, money, Monopoly City and classic rules, the commands."""
