"""Write minimal pure-Python wheels into ./wheels: name==version[:requirement;requirement][@tag] per argument.

pip reads these as it reads any wheel (METADATA, WHEEL, RECORD); they hold a one-line module.
"""

import base64
import hashlib
import os
import sys
import zipfile


def digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel(spec: str, folder: str = "wheels") -> str:
    spec, _, tag = spec.partition("@")
    head, _, requires = spec.partition(":")
    name, version = head.split("==")
    tag = tag or "py3-none-any"
    dist = f"{name.replace('-', '_')}-{version}"
    files = {
        f"{name.replace('-', '_')}/__init__.py": f"__version__ = {version!r}\n".encode(),
        f"{dist}.dist-info/METADATA": (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            + "".join(f"Requires-Dist: {r}\n" for r in requires.split(";") if r)
        ).encode(),
        f"{dist}.dist-info/WHEEL": f"Wheel-Version: 1.0\nGenerator: rootcause\nRoot-Is-Purelib: true\nTag: {tag}\n".encode(),
    }
    record = "".join(f"{path},{digest(data)},{len(data)}\n" for path, data in files.items())
    record += f"{dist}.dist-info/RECORD,,\n"
    files[f"{dist}.dist-info/RECORD"] = record.encode()
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{dist}-{tag}.whl")
    with zipfile.ZipFile(path, "w") as z:
        for name_in_zip, data in files.items():
            z.writestr(name_in_zip, data)
    return path


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(wheel(arg))
