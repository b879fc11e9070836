"""The app tests' set-up, here too: every test gets its own config and cache folders (autouse), and
the stores the app's tests use."""

from tests.app.conftest import (  # noqa: F401 (fixtures are found by name)
    cache_dir,
    config_dir,
    demo,
    demo_template,
    lasting_toasts,
    store,
)
