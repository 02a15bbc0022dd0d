# gunicorn reads this file from the directory it starts in (the project's root: README's production
# lines, docker/Dockerfile, the benchmarks and the fault suite start it there).
# Threads, spreading the connections evenly over the worker processes: config/web_worker.py.
worker_class = "config.web_worker.BalancedThreadWorker"
