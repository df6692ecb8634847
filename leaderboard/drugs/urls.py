from django.urls import path

from leaderboard.drugs import views

app_name = "drugs"
urlpatterns = [
    path("drugs/", views.drug_list, name="list"),
    path("drugs/<str:drugbank_id>/", views.drug_detail, name="detail"),
    path("drugs/<str:drugbank_id>/structure.svg", views.structure_svg, name="structure"),
]
