"""An excerpt of an export's sidecar: every field, with the long lists cut."""
import json
import sys

with open(sys.argv[1]) as fh:
    side = json.load(fh)
names = side["variables"]["names"]
keep = list(names)[:2] + [k for k in names if k.startswith("v(")][:2]
side["variables"]["names"] = {k: names[k] for k in keep} | {"...": f"{len(names)} in all"}
side["data"]["features"] = side["data"]["features"][:3] + ["..."]
side["variables"]["meaning"] = {k: v for k, v in side["variables"]["meaning"].items()
                                if k in ("w", "b", "xi", "v")}
print(json.dumps(side, indent=1))
