"""Shared test support: a real git-backed HTTP server (GitServer) and pytest fixtures for the `skill` client."""
