"""Load tester: bots playing full tables over real WebSockets."""
