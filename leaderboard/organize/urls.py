from django.urls import path  # noqa: F401  (the organizer pages add their routes here)

app_name = "organize"
urlpatterns: list = []
