"""Importers of raw result files (sysbench output, vmstat, iostat, mytools result trees)."""

from benchdeck.store.importers.mytools import ImportProgress, MytoolsImport, import_mytools_tree
from benchdeck.store.importers.sysbench_files import ImportedRun, ImportError_, RunFiles, import_run_files

__all__ = [
    "ImportError_",
    "ImportProgress",
    "ImportedRun",
    "MytoolsImport",
    "RunFiles",
    "import_mytools_tree",
    "import_run_files",
]
