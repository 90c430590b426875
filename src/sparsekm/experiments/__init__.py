"""Experiments at scale: a TOML grid run on Dask, a resumable DuckDB store, reports and plots.

::

    cfg = load_config("grid.toml")          # validated: a wrong key is an error naming it
    run_experiment(cfg, workers=2)          # LocalCluster; scheduler="tcp://host:8786" also
    print(report(cfg, "markdown"))          # from the store, never from re-running
    plot(cfg, "figures/")                   # performance profiles, box plots, gap vs time, ...

The CLI is ``sparsekm bench run|status|report|plot CONFIG.toml`` (``docs/topics/experiments.md``).
"""

from sparsekm.lazy import lazy

_NAMES = {
    "ConfigError": "config", "ExperimentConfig": "config", "load_config": "config",
    "loads_config": "config", "parse_config": "config", "RunSpec": "grid", "expand": "grid",
    "run_experiment": "execute", "status": "execute", "dask_client": "execute",
    "Store": "store", "report": "tables", "report_frame": "tables", "runs_frame": "tables",
    "series_frame": "tables",
    "plot": "plots",
}
__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy(__name__, _NAMES)
