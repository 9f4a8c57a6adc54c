"""Shared manifest samples for the manifest and CLI tests (imported by module name)."""

from __future__ import annotations

import textwrap

from tests.conftest import EXAMPLE_DIR, GOLDEN_MANIFEST

EXAMPLE_MANIFEST = EXAMPLE_DIR / "todoapp.manifest.yaml"
__all__ = ["EXAMPLE_MANIFEST", "GOLDEN_MANIFEST", "GOOD_YAML"]

# A small, valid flat manifest. Line numbers below are referred to by the corpus tests.
GOOD_YAML = textwrap.dedent("""\
    applicationName: ShopApp
    defaultLanguageCode: en
    enableAuthentication: false
    entities:
      - name: Order
        sname: OrderService
        members:
          - memberNature: simple
            ename: Order
            mname: orderId
            memberType: string
            memberTag: ID
          - memberNature: simple
            ename: Order
            mname: status
            memberType: enumeration
            listOfEnumValues: New,Paid
          - memberNature: composite
            ename: Order
            fename: Customer
            memberName: customer
            fieldRelationType: ManyToOne
      - name: Customer
        members:
          - memberNature: simple
            ename: Customer
            mname: email
            memberType: string
    serviceConfigurations:
      - name: OrderServiceConfiguration
        id: OrderService
        apiProtocol: https
    useCases:
      - name: OrderCRUD
        ename: Order
        useCaseType: CRUD
    fieldMappings:
      - name: OrderMapping
        ename: Order
        mapping:
          - fieldKey: orderId
            mapTo: _id
    languages:
      - languageCode: en
        translationEntries:
          - localeID: order.status
            localeValue: Status
    """)
