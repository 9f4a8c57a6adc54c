import { NgModule, APP_INITIALIZER } from '@angular/core';
import { BrowserModule } from '@angular/platform-browser';

import { AppRoutingModule } from './app-routing.module';
import { AppComponent } from './app.component';
import { AverosCoreModule } from '@wiforge/averos';
import { BrowserAnimationsModule } from '@angular/platform-browser/animations';
import { HttpClientModule } from '@angular/common/http';
import { ApplicationInitializerService } from './service/application-initializer.service';
import { CreateBookComponent } from './view/book/create-book/create-book.component';
import { BookDetailsComponent } from './view/book/book-details/book-details.component';
import { SearchBookComponent } from './view/book/search-book/search-book.component';

@NgModule({
  declarations: [
    AppComponent,
    CreateBookComponent,
    BookDetailsComponent,
    SearchBookComponent
  ],
  imports: [
    AverosCoreModule.forRoot({ beURL: 'http://locahost:3000', supportedLanguages: ['en', 'fr'] }),
BrowserModule,
    AppRoutingModule, 
BrowserAnimationsModule, 
HttpClientModule
  ],
  providers: [
               {
                  provide: APP_INITIALIZER,
                  useFactory: applicationInitializer,
                  deps: [ApplicationInitializerService],
                  multi: true
               }],
  bootstrap: [AppComponent]
})
export class AppModule { }

 /******************** Custom application initializer loader: DO NOT REMOVE IT ********************/
export function applicationInitializer(applicationInitializerService: ApplicationInitializerService): () => Promise<any> {
  return () => applicationInitializerService.initialize();
}
