from accounts.selectors import username_key, users_by_username


def test_users_are_found_by_any_case_or_compatibility_form_of_their_name(
    alice, bob, django_assert_num_queries
):
    with django_assert_num_queries(1):
        found = users_by_username(usernames=["ALICE", "\uff42\uff4f\uff42", "nobody"])
    assert found == {"alice": alice, "bob": bob}
    assert found[username_key(" Alice ")] == alice


def test_no_names_cost_no_query(db, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert users_by_username(usernames=[]) == {}
