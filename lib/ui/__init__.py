"""Render helpers for Streamlit: they lay out what lib computed and decide nothing themselves."""
