"""How scripts/init-env and scripts/run write a path into .env (imported by both; the system
python3 runs it for init-env, so it carries no annotations)."""


def env_value(path):
    """The path quoted so python-dotenv and Compose both read it back as written (spaces,
    '#', '&' and '$' mean something to them bare), or None. Single quotes take everything but
    a single quote; a path holding one ("Mario's Vault") goes in double quotes, in which only
    '"', '\\', '$' and '`' are read as more than themselves."""
    if "\n" in path or "\r" in path:
        return None
    if "'" not in path:
        return f"'{path}'"
    return None if any(c in path for c in '"\\$`') else f'"{path}"'
