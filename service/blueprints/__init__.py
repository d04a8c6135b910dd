"""One flask-smorest blueprint per resource."""
