"""Session state: one typed :class:`~dashboard.session.state.AppState` per browser session."""
