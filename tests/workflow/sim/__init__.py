"""A local stand-in for GitHub Actions, enough to run ksnap's action.yml and
ci/github/workflows/*.yml step by step (tests/workflow/test_actions.py)."""
