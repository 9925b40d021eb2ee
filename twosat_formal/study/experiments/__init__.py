"""The paper's experiment protocols as declarative specs, and the runner."""
