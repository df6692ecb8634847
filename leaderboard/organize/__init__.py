"""Organizer surfaces of organized challenges: create, manage, moderate.

Above the app chain (it may import challenges, submissions and boards): the
pages at ``/challenges/new/`` and ``/challenges/<slug>/manage/...`` and the
services they share with the API's organizer endpoints.
"""
